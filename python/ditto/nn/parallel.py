"""ditto.nn.parallel.DistributedDataParallel: data parallelism whose bits do not depend on the
number of processes. The global batch is cut into num_leaves leaves, fixed by the run;
forward_backward(leaf_loss) runs leaf_loss(leaf) and its backward for this rank's leaves and sums
the leaves' gradients in one canonical tree (the C++ nn::DistributedDataParallel does the work)."""
from ditto import _C
from ditto.nn.modules import Module


class DistributedDataParallel(Module):
    def __init__(self, module, num_leaves, device_ids=None, output_device=None, **kwargs):
        super().__init__()
        self.module = module
        named = list(module.named_parameters())
        buffers = list(module.named_buffers())
        object.__setattr__(self, "_impl", _C._distributed.DistributedDataParallel(
            [p for _, p in named], [b for _, b in buffers], num_leaves,
            [n for n, _ in named], [n for n, _ in buffers]))

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def forward_backward(self, leaf_loss):
        """Runs leaf_loss(leaf) (a leaf's forward, returning its loss) and backward for this
        rank's leaves; every rank's .grad then holds the mean of the leaves' gradients, the same
        bits for any world size. Returns the mean of the leaves' losses."""
        return self._impl.forward_backward(leaf_loss)

    @property
    def num_leaves(self):
        return self._impl.num_leaves

    @property
    def local_leaves(self):
        """range of the leaves this rank computes."""
        begin, end = self._impl.local_leaves
        return range(begin, end)

    def last_traffic(self):
        """(bytes this rank sent in the last step, bytes a ring all-reduce would send)."""
        return self._impl.last_traffic()


__all__ = ["DistributedDataParallel"]
