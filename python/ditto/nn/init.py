"""ditto.nn.init, as torch.nn.init: the same bounds, computed in double as PyTorch's Python does,
drawn from PyTorch's streams."""
from ditto import _C, no_grad

_i = _C._init


def calculate_gain(nonlinearity, param=None):
    return _i.calculate_gain(nonlinearity, 0.01 if param is None else param)


def _calculate_fan_in_and_fan_out(tensor):
    return _i.calculate_fan_in_and_fan_out(tensor)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        _i.uniform_(tensor, a, b, generator)
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        _i.normal_(tensor, mean, std, generator)
    return tensor


def constant_(tensor, val):
    with no_grad():
        _i.constant_(tensor, val)
    return tensor


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    with no_grad():
        _i.xavier_uniform_(tensor, gain, generator)
    return tensor


def xavier_normal_(tensor, gain=1.0, generator=None):
    with no_grad():
        _i.xavier_normal_(tensor, gain, generator)
    return tensor


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    with no_grad():
        _i.kaiming_uniform_(tensor, a, mode, nonlinearity, generator)
    return tensor


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    with no_grad():
        _i.kaiming_normal_(tensor, a, mode, nonlinearity, generator)
    return tensor
