#!/usr/bin/python3
"""Writes tests/data/pytorch-pool.json: known answers from PyTorch (CPU) for ditto's 3-D,
adaptive, fractional and power-average pooling (tests/test_nn_pool3d.cpp). The 2-D max and
average pooling answers are in tools/gen_golden_nn_conv.py.

Run with Debian's python (the one with torch):  /usr/bin/python3 tools/gen_golden_pool.py [out]

Format: tools/golden_json.py's schema, one section "cases". A case holds the torch.nn.functional op it
ran ("op"), its keyword arguments as passed ("args"; null: not passed), its input ("transposed":
it ran on input.transpose(-1, -2), a strided view), the samples it was given ("samples") or the
seed set with torch.manual_seed before it drew them itself ("seed"), PyTorch's outputs (values,
and indices where it returns them), the upstream gradient of the first output, PyTorch's gradient
and grad_fn name.
"""
import os
import platform
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import document, enc, write  # noqa: E402  (the one schema of the golden files)

gen = torch.Generator().manual_seed(20261203)


def rnd(*shape, dtype=torch.float32, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def ints(*shape, hi=3, dtype=torch.float32):
    return torch.randint(0, hi, shape, generator=gen).to(dtype)


def case(name, op, x, transposed=False, samples=None, seed=None, grad=True, **args):
    x = x.clone()
    if grad:
        x.requires_grad_()
    xin = x.transpose(-1, -2) if transposed else x
    kw = dict(args)
    if op.startswith('max_pool') or op.startswith('adaptive_max') or op.startswith('fractional'):
        kw['return_indices'] = True
    if samples is not None:
        kw['_random_samples'] = samples
    if seed is not None:
        torch.manual_seed(seed)
    res = getattr(F, op)(xin, **kw)
    outs = list(res) if isinstance(res, tuple) else [res]
    c = {'name': name, 'op': op, 'args': args, 'input': enc(x), 'transposed': transposed,
         'samples': enc(samples) if samples is not None else None, 'seed': seed,
         'outputs': [enc(o) for o in outs]}
    if grad:
        gout = rnd(*outs[0].shape, dtype=outs[0].dtype)
        (g,) = torch.autograd.grad(outs[0], [x], gout)
        c.update({'grad_output': enc(gout), 'grad_input': enc(g), 'grad_fn': type(outs[0].grad_fn).__name__})
    return c


def samples(n, c, dims, dtype=torch.float32):
    return torch.rand(n, c, dims, generator=gen, dtype=torch.float64).to(dtype)


def tiny_negative():
    """Zeros and one -denormal: sums that divide to -0 (avg_pool writes 0 + sum / d: +0)."""
    x = torch.zeros(1, 1, 2, 2, 2)
    x[0, 0, 0, 0, 0] = -1.4e-45
    return x


def cases():
    c = []
    # max_pool3d: every option, ties, NaN, strided input, float64, unbatched
    c.append(case('mp3_basic', 'max_pool3d', rnd(2, 2, 4, 6, 6), kernel_size=2))
    c.append(case('mp3_k3_s2_p1', 'max_pool3d', rnd(1, 3, 7, 8, 9), kernel_size=3, stride=2, padding=1))
    c.append(case('mp3_rect', 'max_pool3d', rnd(2, 2, 5, 7, 9), kernel_size=[2, 3, 1], stride=[1, 2, 1],
                  padding=[1, 1, 0]))
    c.append(case('mp3_ceil', 'max_pool3d', rnd(1, 2, 6, 7, 8), kernel_size=3, stride=2, padding=1, ceil_mode=True))
    c.append(case('mp3_dilation', 'max_pool3d', rnd(1, 2, 7, 9, 9), kernel_size=3, stride=1, padding=1,
                  dilation=[2, 1, 2]))
    c.append(case('mp3_ties', 'max_pool3d', ints(2, 2, 5, 6, 7), kernel_size=3, stride=1, padding=1))
    x = rnd(1, 2, 4, 4, 4)
    x[0, 0, 1, 1, 1] = float('nan')
    x[0, 1, 2, 2:, :] = float('-inf')
    c.append(case('mp3_nan_neg_inf', 'max_pool3d', x, grad=False, kernel_size=2))
    c.append(case('mp3_unbatched', 'max_pool3d', rnd(3, 4, 5, 6), kernel_size=[2, 2, 3]))
    c.append(case('mp3_transposed', 'max_pool3d', rnd(2, 2, 5, 9, 6), transposed=True, kernel_size=2, stride=[1, 2, 2]))
    c.append(case('mp3_wide_rows', 'max_pool3d', rnd(1, 2, 3, 4, 40), kernel_size=[2, 2, 3], stride=[1, 1, 2],
                  padding=[0, 1, 1]))
    c.append(case('mp3_float64', 'max_pool3d', rnd(1, 2, 5, 5, 5, dtype=torch.float64), kernel_size=3, stride=2,
                  padding=1))
    # avg_pool3d
    c.append(case('ap3_basic', 'avg_pool3d', rnd(2, 2, 4, 6, 6), kernel_size=2))
    c.append(case('ap3_k3_s2_p1', 'avg_pool3d', rnd(1, 3, 7, 8, 9), kernel_size=3, stride=2, padding=1))
    c.append(case('ap3_exclude_pad', 'avg_pool3d', rnd(1, 3, 7, 8, 9), kernel_size=3, stride=2, padding=1,
                  count_include_pad=False))
    c.append(case('ap3_ceil', 'avg_pool3d', rnd(1, 2, 6, 7, 8), kernel_size=3, stride=2, padding=1, ceil_mode=True))
    c.append(case('ap3_ceil_exclude', 'avg_pool3d', rnd(1, 2, 6, 7, 8), kernel_size=3, stride=2, padding=1,
                  ceil_mode=True, count_include_pad=False))
    c.append(case('ap3_divisor', 'avg_pool3d', rnd(1, 2, 5, 6, 6), kernel_size=3, stride=2, padding=1,
                  divisor_override=5))
    c.append(case('ap3_rect', 'avg_pool3d', rnd(2, 2, 5, 7, 9), kernel_size=[1, 2, 3], stride=[1, 1, 2],
                  padding=[0, 1, 1]))
    c.append(case('ap3_unbatched', 'avg_pool3d', rnd(2, 4, 5, 5), kernel_size=2))
    c.append(case('ap3_transposed', 'avg_pool3d', rnd(1, 2, 4, 8, 6), transposed=True, kernel_size=[2, 3, 2]))
    c.append(case('ap3_sum_order', 'avg_pool3d', rnd(1, 2, 9, 9, 9, lo=-100, hi=100), kernel_size=4, stride=3,
                  padding=2, ceil_mode=True))
    c.append(case('ap3_tiny_negative', 'avg_pool3d', tiny_negative(), kernel_size=2, divisor_override=1000))
    c.append(case('ap3_float64', 'avg_pool3d', rnd(1, 2, 5, 5, 5, dtype=torch.float64), kernel_size=3, stride=2,
                  padding=1))
    # avg_pool1d (the 2-D op over height 1)
    c.append(case('ap1_k3_s2_p1', 'avg_pool1d', rnd(2, 3, 11), kernel_size=3, stride=2, padding=1))
    c.append(case('ap1_ceil_exclude', 'avg_pool1d', rnd(2, 2, 10), kernel_size=4, stride=3, padding=2,
                  ceil_mode=True, count_include_pad=False))
    # adaptive average pooling, 1-D and 3-D
    c.append(case('aap1_11_to_4', 'adaptive_avg_pool1d', rnd(2, 3, 11), output_size=4))
    c.append(case('aap1_5_to_8', 'adaptive_avg_pool1d', rnd(1, 2, 5), output_size=8))
    c.append(case('aap1_unbatched', 'adaptive_avg_pool1d', rnd(3, 9), output_size=[2]))
    c.append(case('aap3_to_234', 'adaptive_avg_pool3d', rnd(2, 2, 5, 7, 9), output_size=[2, 3, 4]))
    c.append(case('aap3_grow', 'adaptive_avg_pool3d', rnd(1, 2, 3, 4, 5), output_size=[4, 6, 7]))
    c.append(case('aap3_large', 'adaptive_avg_pool3d', rnd(1, 2, 9, 8, 7, lo=-50, hi=50), output_size=3))
    c.append(case('aap3_unbatched', 'adaptive_avg_pool3d', rnd(3, 4, 6, 5), output_size=[2, 2, 3]))
    c.append(case('aap3_transposed', 'adaptive_avg_pool3d', rnd(1, 2, 4, 7, 6), transposed=True,
                  output_size=[3, 2, 4]))
    c.append(case('aap3_tiny_negative', 'adaptive_avg_pool3d', tiny_negative(), output_size=[1, 1, 2]))
    c.append(case('aap3_float64', 'adaptive_avg_pool3d', rnd(1, 2, 5, 6, 7, dtype=torch.float64),
                  output_size=[2, 4, 3]))
    # adaptive max pooling, 1-D to 3-D
    c.append(case('amp1_11_to_4', 'adaptive_max_pool1d', rnd(2, 3, 11), output_size=4))
    c.append(case('amp1_ties', 'adaptive_max_pool1d', ints(2, 2, 9), output_size=5))
    c.append(case('amp2_7x9_to_3x4', 'adaptive_max_pool2d', rnd(2, 2, 7, 9), output_size=[3, 4]))
    c.append(case('amp2_grow', 'adaptive_max_pool2d', rnd(1, 2, 4, 5), output_size=[6, 7]))
    c.append(case('amp2_ties', 'adaptive_max_pool2d', ints(2, 2, 6, 7), output_size=[4, 3]))
    x = rnd(1, 2, 6, 6)
    x[0, 0, 1, 2] = float('nan')
    x[0, 1, 3:, :] = float('-inf')
    c.append(case('amp2_nan_neg_inf', 'adaptive_max_pool2d', x, grad=False, output_size=3))
    c.append(case('amp2_unbatched', 'adaptive_max_pool2d', rnd(3, 7, 5), output_size=[2, 3]))
    c.append(case('amp2_transposed', 'adaptive_max_pool2d', rnd(2, 2, 9, 6), transposed=True, output_size=[4, 5]))
    c.append(case('amp2_global', 'adaptive_max_pool2d', rnd(2, 3, 5, 5), output_size=1))
    c.append(case('amp3_to_234', 'adaptive_max_pool3d', rnd(2, 2, 5, 7, 9), output_size=[2, 3, 4]))
    c.append(case('amp3_ties', 'adaptive_max_pool3d', ints(1, 2, 4, 5, 6), output_size=[3, 2, 4]))
    c.append(case('amp3_unbatched', 'adaptive_max_pool3d', rnd(3, 4, 6, 5), output_size=[2, 2, 3]))
    c.append(case('amp3_float64', 'adaptive_max_pool3d', rnd(1, 2, 5, 6, 7, dtype=torch.float64),
                  output_size=[3, 4, 2]))
    # fractional max pooling: given samples, and drawn after a seed (PyTorch's own draw)
    c.append(case('fmp2_size', 'fractional_max_pool2d', rnd(2, 3, 9, 11), samples=samples(2, 3, 2),
                  kernel_size=2, output_size=[5, 6]))
    c.append(case('fmp2_ratio', 'fractional_max_pool2d', rnd(2, 2, 10, 12), samples=samples(2, 2, 2),
                  kernel_size=[3, 2], output_ratio=[0.5, 0.7]))
    c.append(case('fmp2_out1', 'fractional_max_pool2d', rnd(1, 2, 5, 6), samples=samples(1, 2, 2),
                  kernel_size=3, output_size=[1, 2]))
    c.append(case('fmp2_ties', 'fractional_max_pool2d', ints(1, 2, 8, 8), samples=samples(1, 2, 2),
                  kernel_size=2, output_size=5))
    c.append(case('fmp2_unbatched', 'fractional_max_pool2d', rnd(3, 9, 9), samples=samples(1, 3, 2),
                  kernel_size=2, output_size=[4, 4]))
    c.append(case('fmp2_float64', 'fractional_max_pool2d', rnd(1, 2, 9, 10, dtype=torch.float64),
                  samples=samples(1, 2, 2, torch.float64), kernel_size=3, output_size=[4, 5]))
    c.append(case('fmp2_seed0', 'fractional_max_pool2d', rnd(2, 3, 12, 12), seed=0, kernel_size=2,
                  output_size=[7, 6]))
    c.append(case('fmp2_seed42_ratio', 'fractional_max_pool2d', rnd(1, 4, 11, 13), seed=42, kernel_size=3,
                  output_ratio=0.6))
    c.append(case('fmp2_seed7_float64', 'fractional_max_pool2d', rnd(2, 2, 10, 9, dtype=torch.float64), seed=7,
                  kernel_size=2, output_size=[5, 4]))
    c.append(case('fmp3_size', 'fractional_max_pool3d', rnd(2, 2, 7, 9, 8), samples=samples(2, 2, 3),
                  kernel_size=2, output_size=[4, 5, 3]))
    c.append(case('fmp3_ratio', 'fractional_max_pool3d', rnd(1, 2, 8, 10, 9), samples=samples(1, 2, 3),
                  kernel_size=[2, 3, 2], output_ratio=[0.5, 0.5, 0.7]))
    c.append(case('fmp3_unbatched', 'fractional_max_pool3d', rnd(2, 6, 7, 8), samples=samples(1, 2, 3),
                  kernel_size=2, output_size=[3, 4, 5]))
    c.append(case('fmp3_seed3', 'fractional_max_pool3d', rnd(2, 2, 8, 8, 8), seed=3, kernel_size=2,
                  output_size=[5, 4, 6]))
    # power-average pooling
    c.append(case('lp1_p2', 'lp_pool1d', rnd(2, 3, 11), norm_type=2.0, kernel_size=3, stride=2))
    c.append(case('lp1_p3_ceil', 'lp_pool1d', rnd(2, 2, 10, lo=0.1, hi=2), norm_type=3.0, kernel_size=4,
                  ceil_mode=True))
    c.append(case('lp2_p2', 'lp_pool2d', rnd(2, 2, 8, 9), norm_type=2.0, kernel_size=2))
    c.append(case('lp2_p1_5_rect', 'lp_pool2d', rnd(1, 2, 9, 10, lo=0.1, hi=2), norm_type=1.5, kernel_size=[2, 3],
                  stride=[2, 1]))
    c.append(case('lp2_p4_float64', 'lp_pool2d', rnd(1, 2, 7, 7, dtype=torch.float64), norm_type=4.0,
                  kernel_size=3, stride=2, ceil_mode=True))
    return c


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'tests', 'data',
                                                               'pytorch-pool.json')
    torch.set_num_threads(1)
    meta = {
        'platform': platform.platform(),
        'debian_package': subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'python3-torch'],
                                         capture_output=True, text=True).stdout or None,
    }
    doc = document('tools/gen_golden_pool.py', {'cases': cases()}, meta)
    write(path, doc)
    print('wrote', os.path.normpath(path), len(doc['sections']['cases']), 'cases')


if __name__ == '__main__':
    main()
