"""The named tuples some ops return, as torch.return_types: values, indices = ditto.max(x, 1)."""
from collections import namedtuple


def _make(name):
    base = namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"ditto.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": (), "__module__": __name__})


max = _make("max")  # noqa: A001
min = _make("min")  # noqa: A001
cummax = _make("cummax")
cummin = _make("cummin")
sort = _make("sort")
topk = _make("topk")
kthvalue = _make("kthvalue")
median = _make("median")
nanmedian = _make("nanmedian")
mode = _make("mode")
