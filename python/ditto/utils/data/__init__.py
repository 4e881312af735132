"""ditto.utils.data: the samplers of data-parallel training."""
from ditto.utils.data.distributed import DistributedSampler, LeafSampler  # noqa: F401
