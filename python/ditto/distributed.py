"""ditto.distributed: torch.distributed's names over ditto's process group (MPI, started with
mpirun; a world of one process without it). Collectives give the same bits on every rank:
all_reduce sums in a fixed tree over the ranks, never in MPI's order. For bits that do not depend
on the number of processes, train with ditto.nn.parallel.DistributedDataParallel, whose sum runs
over a fixed number of leaves (docs/distributed.md)."""
from ditto import _C

_d = _C._distributed

LeafReducer = _d.LeafReducer


class ReduceOp:
    SUM = "sum"
    AVG = "avg"


def is_available():
    """True when this ditto was built with MPI."""
    return _d.is_available()


def is_mpi_available():
    return _d.is_available()


def init_process_group(backend="mpi", init_method=None, timeout=None, world_size=-1, rank=-1, **kwargs):
    """Joins the processes mpirun started. The backend is always ditto's MPI transport; "gloo" and
    "mpi" are accepted so that PyTorch CPU programs run unchanged."""
    if backend not in (None, "mpi", "gloo"):
        raise ValueError(f"ditto.distributed runs on CPUs over MPI; backend '{backend}' is not available")
    _d.init()
    if world_size not in (-1, None) and world_size != _d.world_size():
        raise ValueError(f"init_process_group: world_size={world_size}, but mpirun started {_d.world_size()} processes")
    if rank not in (-1, None) and rank != _d.rank():
        raise ValueError(f"init_process_group: rank={rank}, but this process is rank {_d.rank()}")


def is_initialized():
    return _d.is_initialized()


def destroy_process_group(group=None):
    _d.finalize()


def get_rank(group=None):
    return _d.rank()


def get_world_size(group=None):
    return _d.world_size()


def barrier(group=None, async_op=False, device_ids=None):
    _d.barrier()


def broadcast(tensor, src=0, group=None, async_op=False):
    """tensor takes rank src's bits, in place."""
    _d.broadcast(tensor, src)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills tensor_list (one tensor per rank) with every rank's tensor."""
    got = _d.all_gather(tensor)
    if len(tensor_list) != len(got):
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a world of {len(got)}")
    for dst, src in zip(tensor_list, got):
        dst.copy_(src)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """The sum (or average) over the ranks, in place: the same bits on every rank."""
    if op not in (ReduceOp.SUM, ReduceOp.AVG):
        raise ValueError(f"all_reduce: ditto supports ReduceOp.SUM and ReduceOp.AVG, not {op}")
    out = _d.all_reduce(tensor)
    if op == ReduceOp.AVG:
        out = out / _d.world_size()
    tensor.copy_(out)


def leaf_range(num_leaves, rank=None, world_size=None):
    """The leaves [begin, end) that a rank computes, of num_leaves."""
    return _d.leaf_range(num_leaves, _d.rank() if rank is None else rank,
                         _d.world_size() if world_size is None else world_size)


def traffic():
    """(bytes, messages) this rank has sent since init."""
    return _d.traffic()
