#!/usr/bin/python3
"""Writes tests/data/pytorch-grid.json: known answers from PyTorch (CPU) for ditto's grid_sample
and affine_grid (tests/test_nn_grid.cpp).

Run with Debian's python (the one with torch):  /usr/bin/python3 tools/gen_golden_grid.py [out]

Format: tools/golden_json.py's schema, sections "grid_sample" and "affine_grid". A grid_sample case holds input, grid, mode, padding_mode,
align_corners, PyTorch's output, the upstream gradient and PyTorch's gradients of input and grid;
an affine_grid case theta, size, align_corners, the grid, the upstream gradient and theta's
gradient. The answers are those of PyTorch's AVX2 kernels (the capability it picks on an AVX2 or
AVX-512 machine; the 2-D kernel is vectorised, so its sums depend on it).
"""
import os
import platform
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import document, enc, write  # noqa: E402  (the one schema of the golden files)
from gen_golden_resample import cpu_capability  # noqa: E402

gen = torch.Generator().manual_seed(20261204)


def rnd(*shape, dtype=torch.float32, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def sample_case(name, in_shape, out_spatial, mode, padding, align, dtype=torch.float32, spread=1.1):
    dims = len(in_shape) - 2
    x = rnd(*in_shape, dtype=dtype).requires_grad_()
    g = rnd(in_shape[0], *out_spatial, dims, dtype=dtype, lo=-spread, hi=spread).requires_grad_()
    out = F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)
    gout = rnd(*out.shape, dtype=dtype)
    gx, gg = torch.autograd.grad(out, [x, g], gout)
    return {'name': name, 'input': enc(x), 'grid': enc(g), 'mode': mode, 'padding_mode': padding,
            'align_corners': align, 'output': enc(out), 'grad_output': enc(gout), 'grad_input': enc(gx),
            'grad_grid': enc(gg)}


def sample_cases():
    c = []
    for mode in ['bilinear', 'nearest', 'bicubic']:
        for padding in ['zeros', 'border', 'reflection']:
            for align in [False, True]:
                n = '%s_%s_%s' % (mode, padding, 'ac' if align else 'noac')
                c.append(sample_case('2d_' + n, (2, 3, 5, 7), (4, 6), mode, padding, align))
                if mode != 'bicubic':
                    c.append(sample_case('3d_' + n, (1, 2, 3, 4, 5), (2, 3, 4), mode, padding, align))
    c.append(sample_case('2d_bilinear_upsample_many_hits', (1, 2, 3, 3), (9, 11), 'bilinear', 'zeros', False,
                         spread=0.9))
    c.append(sample_case('2d_bicubic_wide', (1, 2, 6, 5), (7, 5), 'bicubic', 'zeros', False, spread=2.5))
    c.append(sample_case('2d_bilinear_float64', (2, 2, 4, 6), (3, 5), 'bilinear', 'reflection', False,
                         dtype=torch.float64, spread=3.0))
    c.append(sample_case('2d_bicubic_float64', (1, 2, 5, 5), (4, 4), 'bicubic', 'border', True,
                         dtype=torch.float64))
    c.append(sample_case('3d_bilinear_float64', (1, 2, 3, 4, 4), (2, 2, 3), 'bilinear', 'zeros', True,
                         dtype=torch.float64))
    c.append(sample_case('2d_one_pixel', (1, 1, 1, 1), (2, 3), 'bilinear', 'reflection', True))
    return c


def affine_case(name, size, align, dtype=torch.float32):
    dims = len(size) - 2
    theta = rnd(size[0], dims, dims + 1, dtype=dtype).requires_grad_()
    out = F.affine_grid(theta, size, align_corners=align)
    gout = rnd(*out.shape, dtype=dtype)
    (gt,) = torch.autograd.grad(out, [theta], gout)
    return {'name': name, 'theta': enc(theta), 'size': list(size), 'align_corners': align, 'output': enc(out),
            'grad_output': enc(gout), 'grad_theta': enc(gt)}


def affine_cases():
    return [affine_case('2d', (2, 3, 4, 5), False), affine_case('2d_ac', (1, 1, 3, 7), True),
            affine_case('2d_size1', (1, 2, 1, 4), False), affine_case('3d', (2, 1, 3, 4, 2), False),
            affine_case('3d_ac_float64', (1, 2, 2, 3, 4), True, torch.float64)]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'tests', 'data',
                                                               'pytorch-grid.json')
    torch.set_num_threads(1)
    meta = {
        'cpu_capability': cpu_capability(),
        'platform': platform.platform(),
        'debian_package': subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'python3-torch'],
                                         capture_output=True, text=True).stdout or None,
    }
    if meta['cpu_capability'] != 'AVX2':
        sys.exit('run where PyTorch picks its AVX2 kernels (ATEN_CPU_CAPABILITY=avx2; got %s)' % meta['cpu_capability'])
    sections = {'grid_sample': sample_cases(), 'affine_grid': affine_cases()}
    write(path, document('tools/gen_golden_grid.py', sections, meta))
    print('wrote', os.path.normpath(path), len(sections['grid_sample']), '+', len(sections['affine_grid']), 'cases')


if __name__ == '__main__':
    main()
