"""ditto.autograd: backward from several roots at once (torch.autograd.backward)."""
from ditto import _C


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    if create_graph:
        raise RuntimeError("[backward] create_graph=True is not supported (no higher-order gradients)")
    if isinstance(tensors, _C.Tensor):
        tensors = [tensors]
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, _C.Tensor):
        grad_tensors = [grad_tensors]
    _C._backward(list(tensors), list(grad_tensors), bool(retain_graph))
