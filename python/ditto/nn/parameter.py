"""ditto.nn.Parameter: a Tensor that a Module registers as its parameter."""
from ditto import _C


class Parameter(_C.Tensor):
    """A leaf tensor that requires grad (unless told otherwise) and shares data's memory."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        _C.Tensor.__init__(self, data.detach())
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + _C.Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):  # pragma: no cover - checkpoints are a later issue
        raise TypeError("ditto.nn.Parameter cannot be pickled yet; save its state_dict() instead")


