"""ditto.optim, as torch.optim: SGD, Adam and AdamW over lists of parameters or of param-group
dicts. Each group's update runs in ditto's C++ optimizer, which follows PyTorch's single-tensor
arithmetic (so a step gives PyTorch's bits); the groups, their options and the schedulers are here."""
from ditto.optim import lr_scheduler  # noqa: F401
from ditto.optim.optimizer import SGD, Adam, AdamW, Optimizer  # noqa: F401
