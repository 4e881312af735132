"""nn.MultiheadAttention, TransformerEncoderLayer and TransformerDecoderLayer against PyTorch 1.13:
the same parameter names and initial bits after the same seed, and the same forward results and
gradients (within float32 rounding: the attention without weights is ditto's fused kernel)."""
import numpy as np
import pytest

import ditto

torch = pytest.importorskip("torch")


def to_ditto(t):
    return ditto.from_numpy(t.detach().numpy().copy())


def close(ours, theirs, tol=2e-5):
    return np.allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def pair(cls, *args, **kwargs):
    torch.manual_seed(3)
    theirs = getattr(torch.nn, cls)(*args, **kwargs)
    ditto.manual_seed(3)
    ours = getattr(ditto.nn, cls)(*args, **kwargs)
    return ours, theirs


@pytest.mark.parametrize(
    "cls, args",
    [("MultiheadAttention", (16, 4)), ("TransformerEncoderLayer", (16, 4, 32)), ("TransformerDecoderLayer", (16, 4, 32))],
)
def test_initial_parameters_are_pytorchs_bits(cls, args):
    ours, theirs = pair(cls, *args)
    a, b = ours.state_dict(), theirs.state_dict()
    assert list(a) == list(b)
    for k in b:
        assert np.array_equal(a[k].numpy(), b[k].numpy()), k


@pytest.fixture
def inputs():
    torch.manual_seed(0)
    x = torch.randn(3, 7, 16)
    padding = torch.zeros(3, 7, dtype=torch.bool)
    padding[0, 5:] = True
    padding[2, 3:] = True
    causal = torch.triu(torch.ones(7, 7, dtype=torch.bool), 1)
    return x, padding, causal


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_matches(inputs, need_weights, batch_first):
    x, padding, causal = inputs
    if not batch_first:
        x = x.transpose(0, 1).contiguous()
    ours, theirs = pair("MultiheadAttention", 16, 4, batch_first=batch_first)
    xo = to_ditto(x).requires_grad_()
    xt = x.clone().requires_grad_()
    out_t, w_t = theirs(xt, xt, xt, key_padding_mask=padding, attn_mask=causal, need_weights=need_weights)
    out_o, w_o = ours(xo, xo, xo, key_padding_mask=to_ditto(padding), attn_mask=to_ditto(causal),
                      need_weights=need_weights)  # fmt: skip
    assert close(out_o, out_t)
    assert (w_o is None) == (w_t is None) and (w_t is None or close(w_o, w_t))
    out_t.sum().backward()
    out_o.sum().backward()
    assert close(xo.grad, xt.grad, 1e-4)
    assert close(ours.in_proj_weight.grad, theirs.in_proj_weight.grad, 1e-4)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches(inputs, norm_first, activation):
    x, padding, causal = inputs
    ours, theirs = pair("TransformerEncoderLayer", 16, 4, 32, 0.0, activation=activation, batch_first=True,
                        norm_first=norm_first)  # fmt: skip
    xo, xt = to_ditto(x).requires_grad_(), x.clone().requires_grad_()
    out_t = theirs(xt, src_mask=causal, src_key_padding_mask=padding)
    out_o = ours(xo, src_mask=to_ditto(causal), src_key_padding_mask=to_ditto(padding))
    assert close(out_o, out_t)
    out_t.sum().backward()
    out_o.sum().backward()
    assert close(xo.grad, xt.grad, 1e-4)
    assert close(ours.linear1.weight.grad, theirs.linear1.weight.grad, 1e-4)


def test_decoder_layer_matches(inputs):
    x, _, causal = inputs
    memory = torch.randn(3, 5, 16)
    ours, theirs = pair("TransformerDecoderLayer", 16, 4, 32, 0.0, batch_first=True, norm_first=True)
    assert close(ours(to_ditto(x), to_ditto(memory), tgt_mask=to_ditto(causal)), theirs(x, memory, tgt_mask=causal))


def test_unsupported_options_and_bad_masks_raise():
    with pytest.raises(ValueError, match="not supported"):
        ditto.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    m = ditto.nn.MultiheadAttention(16, 4, batch_first=True)
    x = ditto.randn(2, 5, 16)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        m(x, x, x, attn_mask=ditto.zeros(4, 5, dtype=ditto.bool))
    with pytest.raises(RuntimeError, match="key_padding_mask"):
        m(x, x, x, key_padding_mask=ditto.zeros(2, 4, dtype=ditto.bool))
