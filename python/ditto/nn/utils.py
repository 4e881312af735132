"""torch.nn.utils: gradient clipping, in PyTorch 2.x's arithmetic (foreach or not, the same bits)."""
import math

from ditto import _C


def _grads(parameters):
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so that their total norm is at most max_norm; returns the total norm."""
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return _C.tensor(0.0)
    import ditto

    with ditto.no_grad():
        norms = [_C.vector_norm(g, norm_type) for g in grads]
        total_norm = _C.vector_norm(_C.stack(norms), norm_type)
        if error_if_nonfinite and not math.isfinite(total_norm.item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
                "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`"
            )
        clip_coef = (total_norm + 1e-6).pow(-1) * max_norm  # PyTorch's max_norm / t: t.reciprocal() * max_norm
        clip_coef_clamped = clip_coef.clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped.to(g.dtype))
    return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient into [-clip_value, clip_value]."""
    import ditto

    clip_value = float(clip_value)
    with ditto.no_grad():
        for g in _grads(parameters):
            g.copy_(g.clamp(min=-clip_value, max=clip_value))
