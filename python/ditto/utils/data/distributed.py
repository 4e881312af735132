"""torch.utils.data.DistributedSampler with PyTorch's indices, and LeafSampler (batches made of a
fixed number of leaves, the same samples at every step for every world size)."""
from ditto import _C

_d = _C._distributed


class DistributedSampler:
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        size = dataset if isinstance(dataset, int) else len(dataset)
        self.dataset = dataset
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        self._impl = _d.DistributedSampler(size, -1 if num_replicas is None else num_replicas,
                                           -1 if rank is None else rank, shuffle, seed, drop_last)
        self.num_replicas = self._impl.num_replicas
        self.rank = self._impl.rank
        self.num_samples = self._impl.num_samples
        self.total_size = self._impl.total_size
        self.epoch = 0

    def __iter__(self):
        return iter(self._impl.indices())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
        self._impl.set_epoch(epoch)


class LeafSampler:
    """Batch b of an epoch is batch_size samples of the epoch's order; leaf(b, l) its l-th
    batch_size / num_leaves of them."""

    def __init__(self, dataset, batch_size, num_leaves, shuffle=True, seed=0):
        size = dataset if isinstance(dataset, int) else len(dataset)
        self._impl = _d.LeafSampler(size, batch_size, num_leaves, shuffle, seed)

    def set_epoch(self, epoch):
        self._impl.set_epoch(epoch)

    @property
    def epoch(self):
        return self._impl.epoch

    @property
    def batches_per_epoch(self):
        return self._impl.batches_per_epoch

    def batch(self, b):
        return self._impl.batch(b)

    def leaf(self, b, leaf):
        return self._impl.leaf(b, leaf)
