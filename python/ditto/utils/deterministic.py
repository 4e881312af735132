"""ditto.utils.deterministic.fill_uninitialized_memory, as torch.utils.deterministic: while the
mode is on and this is True (the default), empty tensors are filled with NaN or the dtype's
maximum."""
import sys
import types

from ditto import _C


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self):
        return _C._get_deterministic_fill_uninitialized_memory()

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode):
        if type(mode) is not bool:
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        _C._set_deterministic_fill_uninitialized_memory(mode)


sys.modules[__name__].__class__ = _Deterministic
