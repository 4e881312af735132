"""ditto.linalg: torch.linalg's norms (vector_norm; norm for vectors)."""
from ditto import _C


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return _C.vector_norm(x, float(ord), dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The vector norm (ord None: 2, over dim or every element); matrix norms are not supported."""
    if ord is not None and (isinstance(ord, str) or (dim is not None and not isinstance(dim, int) and len(dim) == 2)):
        raise RuntimeError("[linalg.norm] matrix norms are not supported yet; use vector_norm")
    if ord is None and dim is not None and not isinstance(dim, int) and len(dim) == 2:
        ord = 2  # the Frobenius norm of the matrix is the 2-norm of its elements
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
