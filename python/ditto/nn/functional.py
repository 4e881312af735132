"""ditto.nn.functional, with torch.nn.functional's signatures."""
from ditto import _C

_nn = _C._nn



def _reduction(size_average, reduce, reduction):
    # PyTorch's legacy size_average / reduce arguments, mapped as _Reduction.legacy_get_string.
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def linear(input, weight, bias=None):
    return _nn.linear(input, weight, bias)


def relu(input, inplace=False):
    return _C.relu(input)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def gelu(input, approximate="none"):
    return _nn.gelu(input, approximate)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch 2.x's: a fused kernel whose rows do not depend on the batch (Note [Attention order])."""
    return _nn.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)


def silu(input, inplace=False):
    return _nn.silu(input)


def mish(input, inplace=False):
    return _nn.mish(input)


def hardswish(input, inplace=False):
    return _nn.hardswish(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _nn.leaky_relu(input, negative_slope)


def softplus(input, beta=1, threshold=20):
    return _nn.softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _nn.hardtanh(input, min_val, max_val)


def relu6(input, inplace=False):
    return _nn.hardtanh(input, 0.0, 6.0)


def elu(input, alpha=1.0, inplace=False):
    return _nn.elu(input, alpha, 1.0, 1.0)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        raise TypeError("softmax(): implicit dim is deprecated in PyTorch and not supported by ditto; pass dim=")
    return _C.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        raise TypeError("log_softmax(): implicit dim is deprecated in PyTorch and not supported by ditto; pass dim=")
    return _C.log_softmax(input, dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False, generator=None):
    return _nn.dropout(input, p, training, generator)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _nn.dropout1d(input, p, training, None)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _nn.dropout2d(input, p, training, None)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise RuntimeError("[embedding] max_norm, scale_grad_by_freq and sparse are not supported yet")
    return _nn.embedding(input, weight, padding_idx)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):  # fmt: skip
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise RuntimeError("[embedding_bag] max_norm, scale_grad_by_freq and sparse are not supported yet")
    # PyTorch's Python-level argument errors, as F.embedding_bag raises them
    if input.dim() == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                         f"length sequences. However, found offsets of type {type(offsets)}")  # fmt: skip
    if input.dim() == 1 and (offsets is None or offsets.dim() != 1):
        raise ValueError("offsets has to be a 1D Tensor but got None" if offsets is None else
                         "offsets has to be a 1D Tensor")  # fmt: skip
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "the Pytorch GitHub.")  # fmt: skip
    return _nn.embedding_bag(input, weight, offsets, mode, per_sample_weights, include_last_offset, padding_idx)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _nn.rms_norm(input, normalized_shape, weight, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _nn.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _nn.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):  # fmt: skip
    return _nn.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return _nn.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _nn.mse_loss(input, target, _reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _nn.l1_loss(input, target, _reduction(size_average, reduce, reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    return _nn.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _nn.nll_loss(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction))


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    reduction = _reduction(size_average, reduce, reduction)
    return _nn.cross_entropy(
        input, target, weight, ignore_index, reduction, label_smoothing
    )


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _nn.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    return _nn.huber_loss(input, target, reduction, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    return _nn.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    return _nn.kl_div(input, target, reduction, log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return _nn.margin_ranking_loss(input1, input2, target, margin, _reduction(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return _nn.cosine_embedding_loss(input1, input2, target, margin, _reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    return _nn.binary_cross_entropy_with_logits(
        input, target, weight, _reduction(size_average, reduce, reduction), pos_weight
    )


def _conv_padding(input, padding, weight, dilation, dims):
    """PyTorch's padding='valid' (none) and 'same' (output size = input size at stride 1): each
    dim gets total = dilation * (kernel - 1) zeros, total // 2 on the left and the rest on the
    right, as PyTorch pads; the odd one on the right is a column of zeros joined to the input
    (cat, so the gradient flows). Returns (input, padding for the convolution)."""
    if not isinstance(padding, str):
        return input, padding
    if padding == "valid":
        return input, 0
    if padding != "same":
        raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
    dil = dilation if isinstance(dilation, (list, tuple)) else (dilation,) * dims
    pads = []
    for i, (d, k) in enumerate(zip(dil, weight.shape[-dims:])):
        total = d * (k - 1)
        pads.append(total // 2)
        if total % 2:
            dim = input.dim() - dims + i
            shape = list(input.shape)
            shape[dim] = 1
            input = _C.cat([input, _C.zeros(*shape, dtype=input.dtype)], dim)
    return input, pads


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    input, padding = _conv_padding(input, padding, weight, dilation, 1)
    return _nn.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    input, padding = _conv_padding(input, padding, weight, dilation, 2)
    return _nn.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    input, padding = _conv_padding(input, padding, weight, dilation, 3)
    return _nn.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _nn.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = _nn.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _nn.max_unpool1d(input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _nn.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _nn.max_unpool3d(input, indices, kernel_size, stride, padding, output_size)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _nn.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _nn.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _nn.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive_size(input, output_size, dims):
    # None keeps the input's size in that dim, as in PyTorch
    if isinstance(output_size, (list, tuple)):
        return [input.shape[-dims + i] if s is None else s for i, s in enumerate(output_size)]
    return output_size


def adaptive_avg_pool1d(input, output_size):
    return _nn.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return _nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_avg_pool3d(input, output_size):
    return _nn.adaptive_avg_pool3d(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool1d_with_indices(input, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool2d_with_indices(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool3d_with_indices(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


# Fractional max pooling draws its samples as PyTorch's does (torch.rand(N, C, dims) from the
# default generator) when _random_samples is None, so a seed gives PyTorch's windows.
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):  # fmt: skip
    return _nn.fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):  # fmt: skip
    return _nn.fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):  # fmt: skip
    out, indices = _nn.fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                                          _random_samples)  # fmt: skip
    return (out, indices) if return_indices else out


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):  # fmt: skip
    out, indices = _nn.fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                                          _random_samples)  # fmt: skip
    return (out, indices) if return_indices else out


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _nn.lp_pool1d(input, float(norm_type), kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _nn.lp_pool2d(input, float(norm_type), kernel_size, stride, ceil_mode)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")  # fmt: skip
    return _nn.grid_sample(input, grid, mode, padding_mode, align_corners)


def affine_grid(theta, size, align_corners=None):
    return _nn.affine_grid(theta, list(size), align_corners)


def pad(input, pad, mode="constant", value=None):
    return _nn.pad(input, list(pad), mode, value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if antialias:
        raise NotImplementedError("ditto: interpolate(antialias=True) is not implemented")
    return _nn.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def multi_head_attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias, out_proj_weight,
                                 out_proj_bias, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 average_attn_weights=True, dropout_p=0.0, training=True, is_causal=False):
    """PyTorch's multi_head_attention_forward for (L, N, E) inputs (no bias_kv, zero_attn or separate
    k/v dims). With need_weights it is PyTorch 1.13's composition (bmm, softmax, bmm) and returns the
    weights; without, the heads run through the fused scaled_dot_product_attention, whose rows do
    not depend on the batch."""
    import math

    from ditto import _C as C

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    w_q, w_k, w_v = in_proj_weight.chunk(3)
    b_q, b_k, b_v = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
    if query is key and key is value:  # one projection, as PyTorch's packed in-projection
        q, k, v = linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    if is_causal and attn_mask is None:
        attn_mask = C.triu(C.ones(tgt_len, src_len, dtype=C.bool), 1)
    if attn_mask is not None and attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be {(tgt_len, src_len)}.")
        attn_mask = attn_mask.unsqueeze(0)
    elif attn_mask is not None and tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
        raise RuntimeError(
            f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be {(bsz * num_heads, tgt_len, src_len)}."
        )
    q = q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.contiguous().view(src_len, bsz * num_heads, head_dim).transpose(0, 1)
    v = v.contiguous().view(src_len, bsz * num_heads, head_dim).transpose(0, 1)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise RuntimeError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got {tuple(key_padding_mask.shape)}"
            )
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        if kpm.dtype is not C.bool:
            kpm = kpm != 0
        if attn_mask is None:
            attn_mask = kpm
        elif attn_mask.dtype is C.bool:
            attn_mask = attn_mask + kpm  # logical or
        else:
            attn_mask = attn_mask.masked_fill(kpm, float("-inf"))
    if attn_mask is not None and attn_mask.dtype is C.bool:  # True means "may not attend": -inf
        attn_mask = C.zeros(*attn_mask.shape, dtype=q.dtype).masked_fill(attn_mask, float("-inf"))
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q / math.sqrt(head_dim)
        if attn_mask is not None:
            weights = C.baddbmm(attn_mask.expand(bsz * num_heads, tgt_len, src_len), q_scaled, k.transpose(-2, -1))
        else:
            weights = C.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = C.bmm(weights, v).transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.sum(dim=1) / num_heads
        return out, weights
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    if attn_mask is not None and attn_mask.shape[0] != 1:  # per batch and head (PyTorch's view)
        attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    return out, None
