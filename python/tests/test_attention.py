"""ditto's fused scaled_dot_product_attention against a reference made of PyTorch 1.13's own ops
(1.13 has no scaled_dot_product_attention): q k^T * scale, the masks, softmax, @ v; forward and
the gradients of q, k and v."""
import math

import pytest

import ditto

torch = pytest.importorskip("torch")


def reference(q, k, v, mask=None, causal=False, scale=None):
    L, S = q.shape[-2], k.shape[-2]
    a = q @ k.transpose(-2, -1) * (scale or 1 / math.sqrt(q.shape[-1]))
    if causal:
        a = a.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float("-inf"))
    if mask is not None:
        a = a.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else a + mask
    return a.softmax(-1) @ v


def to_ditto(t):
    return ditto.from_numpy(t.detach().numpy().copy())


CASES = [
    ((2, 3, 70, 16), (2, 3, 130, 16), 8, False, None, None),
    ((2, 3, 130, 16), (2, 3, 130, 16), 16, True, None, None),
    ((4, 200, 32), (4, 200, 32), 32, False, "bool", 0.3),
    ((2, 1, 5, 8), (2, 3, 7, 8), 4, False, "float", None),
    ((65, 8), (65, 8), 8, True, None, None),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("q_shape, k_shape, ev, causal, mask_kind, scale", CASES)
def test_matches_pytorchs_composition(dtype, q_shape, k_shape, ev, causal, mask_kind, scale):
    torch.manual_seed(0)
    q = torch.randn(*q_shape, dtype=dtype, requires_grad=True)
    k = torch.randn(*k_shape, dtype=dtype, requires_grad=True)
    v = torch.randn(*k_shape[:-1], ev, dtype=dtype, requires_grad=True)
    L, S = q_shape[-2], k_shape[-2]
    mask = None
    if mask_kind == "bool":
        mask = torch.rand(L, S) > 0.3
        mask[:, 0] = True
    elif mask_kind == "float":
        mask = torch.randn(L, S, dtype=dtype)
    expected = reference(q, k, v, mask, causal, scale)
    g = torch.randn_like(expected)
    expected.backward(g)
    qd, kd, vd = (to_ditto(t).requires_grad_() for t in (q, k, v))
    md = None if mask is None else to_ditto(mask)
    out = ditto.nn.functional.scaled_dot_product_attention(qd, kd, vd, md, is_causal=causal, scale=scale)
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionBackward0"
    out.backward(to_ditto(g))
    tol = {torch.float32: dict(rtol=1e-5, atol=2e-5), torch.float64: dict(rtol=1e-12, atol=1e-12)}[dtype]
    for ours, theirs in ((out, expected), (qd.grad, q.grad), (kd.grad, k.grad), (vd.grad, v.grad)):
        torch.testing.assert_close(torch.from_numpy(ours.detach().numpy()), theirs.detach(), **tol)


def test_dropout_draws_pytorchs_mask_on_the_weights():
    """PyTorch 2.x drops the softmax weights before @ v: with v = I the output is the dropped
    weights, which must be the ones torch.dropout draws after the same seed."""
    q = torch.randn(2, 4, 8)
    ditto.manual_seed(5)
    qd = to_ditto(q)
    weights = ditto.nn.functional.scaled_dot_product_attention(qd, qd, ditto.eye(4).expand(2, 4, 4), dropout_p=0.25)
    torch.manual_seed(5)
    expected = torch.nn.functional.dropout((q @ q.transpose(-2, -1) / math.sqrt(8)).softmax(-1), 0.25)
    torch.testing.assert_close(torch.from_numpy(weights.numpy()), expected)
    assert (weights == 0).sum().item() > 0  # something was dropped
