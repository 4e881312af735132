#!/usr/bin/python3
"""Writes tests/data/pytorch-nn-conv.json: known answers from PyTorch (CPU) for ditto's
convolution and pooling (tests/test_nn_conv.cpp, tests/test_nn_pool.cpp).

Run with Debian's python (the one with torch):  /usr/bin/python3 tools/gen_golden_nn_conv.py [out]

Format: tools/golden_json.py's schema (tensors as {"dtype", "sizes", "data"}), sections "conv",
"max_pool", "max_unpool", "avg_pool2d", "adaptive_avg_pool2d", "init", "conv_more" (conv3d and the
transposed convolutions, with PyTorch's keyword arguments) and "init_more" (Conv3d,
ConvTranspose*d). Every case holds its inputs, the
op's arguments, PyTorch's output(s), the upstream gradient grad_output and PyTorch's gradients.
Inputs come from a fixed torch.Generator, so the file is the same on every run of one PyTorch.
"""
import os
import platform
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import document, enc, write  # noqa: E402  (the one schema of the golden files)

gen = torch.Generator().manual_seed(20240611)


def rnd(*shape, dtype=torch.float32, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def ints(*shape, lo=0, hi=3, dtype=torch.float32):
    return torch.randint(lo, hi, shape, generator=gen).to(dtype)


def grads(out, inputs, gout):
    leaves = [t for t in inputs if t is not None and t.requires_grad]
    gs = torch.autograd.grad(out, leaves, gout)
    it = iter(gs)
    return [next(it) if (t is not None and t.requires_grad) else None for t in inputs]


def conv_case(name, dims, x_shape, w_shape, bias=True, stride=1, padding=0, dilation=1, groups=1,
              dtype=torch.float32):
    x = rnd(*x_shape, dtype=dtype).requires_grad_()
    w = rnd(*w_shape, dtype=dtype).requires_grad_()
    b = rnd(w_shape[0], dtype=dtype).requires_grad_() if bias else None
    fn = F.conv1d if dims == 1 else F.conv2d
    out = fn(x, w, b, stride, padding, dilation, groups)
    gout = rnd(*out.shape, dtype=dtype)
    gx, gw, gb = grads(out, [x, w, b], gout)
    def lst(v):
        return list(v) if isinstance(v, (tuple, list)) else [v]
    return {'name': name, 'dims': dims, 'input': enc(x), 'weight': enc(w), 'bias': enc(b) if bias else None,
            'stride': lst(stride), 'padding': lst(padding), 'dilation': lst(dilation), 'groups': groups,
            'output': enc(out), 'grad_output': enc(gout), 'grad_input': enc(gx), 'grad_weight': enc(gw),
            'grad_bias': enc(gb) if bias else None}


def conv_cases():
    c = []
    c.append(conv_case('basic', 2, (2, 3, 7, 6), (4, 3, 3, 3)))
    c.append(conv_case('stride2_pad1_rect', 2, (2, 3, 8, 9), (5, 3, 3, 2), stride=2, padding=1))
    c.append(conv_case('dilation2_pad21', 2, (1, 2, 9, 8), (3, 2, 3, 3), padding=(2, 1), dilation=2))
    c.append(conv_case('groups2_stride21', 2, (2, 4, 6, 7), (6, 2, 3, 3), stride=(2, 1), padding=1, groups=2))
    c.append(conv_case('depthwise', 2, (2, 3, 5, 6), (6, 1, 3, 3), padding=1, groups=3))
    c.append(conv_case('unbatched_nobias', 2, (3, 6, 5), (2, 3, 2, 2), bias=False))
    c.append(conv_case('one_by_one', 2, (2, 5, 4, 3), (3, 5, 1, 1)))
    c.append(conv_case('stride_gt_kernel', 2, (1, 2, 9, 10), (2, 2, 2, 2), stride=3, padding=1))
    c.append(conv_case('k5_pad2_c8', 2, (2, 8, 10, 10), (16, 8, 5, 5), padding=2))
    c.append(conv_case('dilation_stride_groups', 2, (1, 6, 11, 9), (4, 3, 3, 2), stride=2, padding=(1, 2),
                       dilation=(2, 3), groups=2))
    c.append(conv_case('float64', 2, (2, 3, 6, 6), (2, 3, 3, 3), stride=2, padding=1, dtype=torch.float64))
    c.append(conv_case('conv1d_basic', 1, (2, 3, 11), (4, 3, 3), stride=2, padding=1))
    c.append(conv_case('conv1d_dilation_groups', 1, (2, 3, 12), (3, 1, 2), dilation=3, groups=3))
    c.append(conv_case('conv1d_unbatched_nobias', 1, (2, 7), (3, 2, 4), bias=False))
    return c


def max_pool_case(name, dims, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False, grad=True):
    x = x.clone().requires_grad_()
    fn = F.max_pool1d if dims == 1 else F.max_pool2d
    vals, idx = fn(x, kernel, stride, padding, dilation, ceil_mode, return_indices=True)
    d = {'name': name, 'dims': dims, 'input': enc(x), 'kernel': kernel, 'stride': stride, 'padding': padding,
         'dilation': dilation, 'ceil_mode': ceil_mode, 'values': enc(vals), 'indices': enc(idx)}
    if grad:
        gout = rnd(*vals.shape)
        d['grad_output'] = enc(gout)
        d['grad_input'] = enc(torch.autograd.grad(vals, [x], gout)[0])
    return d


def max_pool_cases():
    c = []
    c.append(max_pool_case('basic', 2, rnd(2, 2, 6, 6), 2))
    c.append(max_pool_case('k3_s2_p1', 2, rnd(2, 3, 7, 8), 3, 2, 1))
    c.append(max_pool_case('ceil_mode', 2, rnd(1, 2, 8, 8), 3, 2, 0, 1, True))
    c.append(max_pool_case('ceil_mode_trim', 2, rnd(1, 2, 5, 6), 2, 2, 1, 1, True))
    c.append(max_pool_case('dilation2', 2, rnd(2, 2, 9, 9), 3, 1, 1, 2))
    c.append(max_pool_case('ties', 2, ints(2, 2, 6, 7), 3, 1, 1))
    x = rnd(1, 2, 6, 6)
    x[0, 0, 1, 1] = float('nan')
    x[0, 0, 4, 2] = float('nan')
    x[0, 0, 4, 3] = float('nan')  # two NaNs in one window: the last wins
    x[0, 1, :3, :3] = float('-inf')
    c.append(max_pool_case('nan_and_neg_inf', 2, x, 2, grad=False))
    c.append(max_pool_case('unbatched', 2, rnd(2, 5, 5), 2))
    c.append(max_pool_case('rect', 2, rnd(2, 2, 7, 9), [2, 3], [1, 2], [1, 1]))
    c.append(max_pool_case('all_ties_ceil_pad', 2, torch.zeros(1, 1, 5, 5), 3, 2, 1, 1, True))
    # a window that holds no input element: -inf, and PyTorch's (out-of-plane) index
    c.append(max_pool_case('empty_window_dilation', 2, rnd(1, 1, 2, 2), 2, 1, 1, 3, grad=False))
    c.append(max_pool_case('1d_basic', 1, rnd(2, 3, 11), 3, 2, 1))
    c.append(max_pool_case('1d_ceil', 1, rnd(2, 2, 10), 3, 2, 0, 1, True))
    c.append(max_pool_case('1d_dilation', 1, rnd(1, 2, 12), 3, 1, 1, 2))
    c.append(max_pool_case('1d_ties', 1, ints(2, 2, 9), 2, 1))
    c.append(max_pool_case('1d_unbatched', 1, rnd(3, 8), 2))
    return c


def unique_indices(planes, lin, lout):
    return torch.stack([torch.randperm(lout, generator=gen)[:lin] for _ in range(planes)])


def unpool_case(name, dims, in_shape, kernel, stride=None, padding=0, output_size=None, out_spatial=None):
    x = rnd(*in_shape).requires_grad_()
    lead = in_shape[:len(in_shape) - dims]
    planes = int(np.prod(lead))
    lin = int(np.prod(in_shape[len(in_shape) - dims:]))
    lout = int(np.prod(out_spatial))
    idx = unique_indices(planes, lin, lout).reshape(in_shape)
    fn = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[dims]
    out = fn(x, idx, kernel, stride, padding, output_size)
    assert list(out.shape[len(lead):]) == list(out_spatial), (out.shape, out_spatial)
    gout = rnd(*out.shape)
    gx = torch.autograd.grad(out, [x], gout)[0]
    return {'name': name, 'dims': dims, 'input': enc(x), 'indices': enc(idx), 'kernel': kernel, 'stride': stride,
            'padding': padding, 'output_size': output_size, 'output': enc(out), 'grad_output': enc(gout),
            'grad_input': enc(gx)}


def unpool_cases():
    c = []
    c.append(unpool_case('1d_default', 1, (2, 3, 4), 2, out_spatial=[8]))
    c.append(unpool_case('1d_output_size', 1, (2, 3, 4), 2, output_size=[9], out_spatial=[9]))
    c.append(unpool_case('1d_full_size', 1, (2, 3, 4), 2, output_size=[2, 3, 9], out_spatial=[9]))
    c.append(unpool_case('2d_default', 2, (2, 2, 3, 3), 2, out_spatial=[6, 6]))
    c.append(unpool_case('2d_output_size', 2, (2, 2, 3, 3), 2, output_size=[7, 7], out_spatial=[7, 7]))
    c.append(unpool_case('2d_full_size', 2, (2, 2, 3, 3), 2, output_size=[2, 2, 6, 7], out_spatial=[6, 7]))
    c.append(unpool_case('2d_stride_pad', 2, (1, 2, 3, 4), 3, 2, 1, out_spatial=[5, 7]))
    c.append(unpool_case('2d_unbatched', 2, (2, 3, 3), 2, out_spatial=[6, 6]))
    c.append(unpool_case('3d_default', 3, (1, 2, 2, 2, 3), 2, out_spatial=[4, 4, 6]))
    c.append(unpool_case('3d_unbatched_output_size', 3, (2, 2, 2, 2), 2, output_size=[5, 4, 4],
                         out_spatial=[5, 4, 4]))
    return c


def avg_case(name, x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    x = x.clone().requires_grad_()
    out = F.avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    gout = rnd(*out.shape)
    gx = torch.autograd.grad(out, [x], gout)[0]
    return {'name': name, 'input': enc(x), 'kernel': kernel, 'stride': stride, 'padding': padding,
            'ceil_mode': ceil_mode, 'count_include_pad': count_include_pad, 'divisor_override': divisor_override,
            'output': enc(out), 'grad_output': enc(gout), 'grad_input': enc(gx)}


def avg_cases():
    c = []
    c.append(avg_case('basic', rnd(2, 2, 6, 6), 2))
    c.append(avg_case('k3_s2_p1', rnd(2, 3, 7, 8), 3, 2, 1))
    c.append(avg_case('k3_s2_p1_exclude_pad', rnd(2, 3, 7, 8), 3, 2, 1, count_include_pad=False))
    c.append(avg_case('ceil_pad', rnd(1, 2, 8, 7), 3, 2, 1, True))
    c.append(avg_case('ceil_pad_exclude', rnd(1, 2, 8, 7), 3, 2, 1, True, False))
    c.append(avg_case('divisor_override', rnd(1, 2, 6, 6), 3, 2, 1, divisor_override=3))
    c.append(avg_case('rect', rnd(2, 2, 7, 9), [2, 3], [1, 2], [1, 0]))
    c.append(avg_case('unbatched', rnd(2, 5, 5), 2))
    c.append(avg_case('k4_s3_sum_order', rnd(1, 3, 13, 13, lo=-100, hi=100), 4, 3, 2, True))
    return c


def adaptive_case(name, x, output_size):
    x = x.clone().requires_grad_()
    out = F.adaptive_avg_pool2d(x, output_size)
    gout = rnd(*out.shape)
    gx = torch.autograd.grad(out, [x], gout)[0]
    return {'name': name, 'input': enc(x), 'output_size': output_size, 'output': enc(out),
            'grad_output': enc(gout), 'grad_input': enc(gx)}


def adaptive_cases():
    c = []
    c.append(adaptive_case('7x9_to_3x4', rnd(2, 2, 7, 9), [3, 4]))
    c.append(adaptive_case('5x5_to_5x5', rnd(1, 2, 5, 5), [5, 5]))
    c.append(adaptive_case('6x10_to_4x3', rnd(2, 3, 6, 10), [4, 3]))
    c.append(adaptive_case('5x7_to_7x9', rnd(1, 2, 5, 7), [7, 9]))
    c.append(adaptive_case('8x8_to_1x3', rnd(2, 2, 8, 8), [1, 3]))
    c.append(adaptive_case('13x11_to_3x3_large', rnd(1, 2, 13, 11, lo=-50, hi=50), 3))
    c.append(adaptive_case('unbatched', rnd(3, 7, 5), [2, 3]))
    c.append(adaptive_case('global_mean_1x1', rnd(2, 3, 8, 8), 1))
    return c


def conv_more_case(name, op, x_shape, w_shape, bias=True, dtype=torch.float32, **kw):
    """conv3d and the transposed convolutions: inputs, PyTorch's keyword arguments, outputs."""
    x = rnd(*x_shape, dtype=dtype).requires_grad_()
    w = rnd(*w_shape, dtype=dtype).requires_grad_()
    out_channels = w_shape[0] if op == 'conv3d' else w_shape[1] * kw.get('groups', 1)
    b = rnd(out_channels, dtype=dtype).requires_grad_() if bias else None
    out = getattr(F, op)(x, w, b, **kw)
    gout = rnd(*out.shape, dtype=dtype)
    gx, gw, gb = grads(out, [x, w, b], gout)
    return {'name': name, 'op': op, 'input': enc(x), 'weight': enc(w), 'bias': enc(b) if bias else None, 'args': kw,
            'output': enc(out), 'grad_output': enc(gout), 'grad_input': enc(gx), 'grad_weight': enc(gw),
            'grad_bias': enc(gb) if bias else None, 'grad_fn': type(out.grad_fn).__name__}


def conv_more_cases():
    c = []
    c.append(conv_more_case('c3_basic', 'conv3d', (2, 3, 5, 6, 7), (4, 3, 3, 3, 3)))
    c.append(conv_more_case('c3_stride_pad_rect', 'conv3d', (1, 2, 7, 8, 6), (3, 2, 2, 3, 1), stride=(2, 1, 2),
                            padding=(1, 1, 0)))
    c.append(conv_more_case('c3_dilation_groups', 'conv3d', (1, 4, 7, 7, 7), (4, 2, 2, 2, 2), dilation=(2, 1, 3),
                            groups=2, padding=1))
    c.append(conv_more_case('c3_unbatched_nobias', 'conv3d', (2, 4, 5, 6), (3, 2, 2, 2, 2), bias=False))
    c.append(conv_more_case('c3_float64', 'conv3d', (1, 2, 4, 5, 5), (2, 2, 3, 3, 3), dtype=torch.float64,
                            stride=2, padding=1))
    c.append(conv_more_case('t1_basic', 'conv_transpose1d', (2, 3, 7), (3, 4, 3), stride=2, padding=1))
    c.append(conv_more_case('t1_outpad_dilation', 'conv_transpose1d', (2, 2, 6), (2, 3, 2), stride=3,
                            output_padding=2, dilation=2))
    c.append(conv_more_case('t1_unbatched_groups', 'conv_transpose1d', (4, 5), (4, 1, 3), groups=2, bias=False))
    c.append(conv_more_case('t2_k4_s2', 'conv_transpose2d', (2, 6, 5, 4), (6, 3, 4, 4), stride=2, padding=1))
    c.append(conv_more_case('t2_outpad_rect', 'conv_transpose2d', (1, 3, 4, 5), (3, 2, 3, 2), stride=(2, 3),
                            padding=(1, 0), output_padding=(1, 2)))
    c.append(conv_more_case('t2_groups_dilation', 'conv_transpose2d', (2, 4, 5, 5), (4, 3, 3, 3), groups=2,
                            dilation=2, padding=2))
    c.append(conv_more_case('t2_unbatched', 'conv_transpose2d', (3, 4, 4), (3, 2, 2, 2), stride=2))
    c.append(conv_more_case('t2_float64', 'conv_transpose2d', (2, 3, 4, 4), (3, 2, 3, 3), dtype=torch.float64,
                            stride=2, padding=1, output_padding=1))
    c.append(conv_more_case('t3_basic', 'conv_transpose3d', (1, 4, 3, 4, 3), (4, 2, 3, 3, 3), stride=2, padding=1,
                            output_padding=(1, 0, 1)))
    c.append(conv_more_case('t3_groups_nobias', 'conv_transpose3d', (2, 4, 3, 3, 4), (4, 1, 2, 2, 2), groups=4,
                            bias=False, dilation=(1, 2, 1)))
    return c


def init_more_cases():
    specs = [
        ('Conv3d', dict(in_channels=3, out_channels=4, kernel_size=3)),
        ('Conv3d', dict(in_channels=4, out_channels=6, kernel_size=[1, 2, 3], groups=2, bias=False)),
        ('ConvTranspose1d', dict(in_channels=4, out_channels=6, kernel_size=3)),
        ('ConvTranspose2d', dict(in_channels=6, out_channels=4, kernel_size=4, stride=2, groups=2)),
        ('ConvTranspose3d', dict(in_channels=2, out_channels=3, kernel_size=2, bias=False)),
    ]
    out = []
    for s in [0, 42]:
        for kind, kw in specs:
            torch.manual_seed(s)
            m = getattr(torch.nn, kind)(**kw)
            out.append({'seed': s, 'module': kind, 'args': kw, 'weight': enc(m.weight),
                        'bias': enc(m.bias) if m.bias is not None else None})
    return out


def init_cases():
    seeds = [0, 1, 42, 1234]
    specs = [
        ('Conv2d', dict(in_channels=1, out_channels=1, kernel_size=1)),
        ('Conv2d', dict(in_channels=16, out_channels=32, kernel_size=5)),
        ('Conv2d', dict(in_channels=8, out_channels=8, kernel_size=3, groups=4)),
        ('Conv2d', dict(in_channels=4, out_channels=6, kernel_size=[2, 3], bias=False)),
        ('Conv2d', dict(in_channels=3, out_channels=5, kernel_size=[3, 1], stride=2, padding=1, dilation=2)),
        ('Conv1d', dict(in_channels=4, out_channels=6, kernel_size=3)),
        ('Conv1d', dict(in_channels=6, out_channels=4, kernel_size=5, groups=2)),
    ]
    out = []
    for s in seeds:
        for kind, kw in specs:
            if kw.get('in_channels') == 16 and s not in (0, 42):
                continue  # a large weight: two seeds are enough
            torch.manual_seed(s)
            m = getattr(torch.nn, kind)(**kw)
            out.append({'seed': s, 'module': kind, 'args': kw, 'weight': enc(m.weight),
                        'bias': enc(m.bias) if m.bias is not None else None})
        # two modules in a row: the second draws after the first
        torch.manual_seed(s)
        a = torch.nn.Conv2d(3, 4, 3)
        b = torch.nn.Conv1d(2, 3, 2)
        out.append({'seed': s, 'module': 'Conv2d+Conv1d', 'args': {}, 'weight': enc(b.weight), 'bias': enc(b.bias),
                    'first_weight': enc(a.weight), 'first_bias': enc(a.bias)})
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'tests', 'data',
                                                              'pytorch-nn-conv.json')
    torch.set_num_threads(1)
    meta = {
        'platform': platform.platform(),
        'python': platform.python_version(),
        'debian_package': subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'python3-torch'],
                                         capture_output=True, text=True).stdout or None,
        'convention': 'float tensors are raw IEEE-754 bits in hex, row-major; int64 tensors are values; '
                      'pooling arguments are as passed to torch.nn.functional (null: default)',
    }
    sections = {
        'conv': conv_cases(),
        'max_pool': max_pool_cases(),
        'max_unpool': unpool_cases(),
        'avg_pool2d': avg_cases(),
        'adaptive_avg_pool2d': adaptive_cases(),
        'init': init_cases(),
        # after every section above, so that adding these left their inputs as they were
        'conv_more': conv_more_cases(),
        'init_more': init_more_cases(),
    }
    write(path, document('tools/gen_golden_nn_conv.py', sections, meta))
    print('wrote', os.path.normpath(path))


if __name__ == '__main__':
    main()
