"""ditto.nn: modules, losses, functional ops and initialisation, as torch.nn. Modules are
Python classes (subclass ditto.nn.Module as in PyTorch); their ops and initialisers are ditto's
C++ ones, so a seed gives PyTorch's initial weights bit for bit."""
from ditto.nn import functional, init, parallel, utils  # noqa: F401
from ditto.nn.modules import *  # noqa: F401,F403
from ditto.nn.modules import __all__ as _modules_all
from ditto.nn.parameter import Parameter  # noqa: F401

__all__ = ["Parameter", "functional", "init", "parallel", "utils"] + list(_modules_all)
