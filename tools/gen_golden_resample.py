#!/usr/bin/python3
"""Writes tests/data/pytorch-resample.json: known answers from PyTorch (CPU) for ditto's padding
and upsampling (tests/test_nn_resample.cpp).

Run with Debian's python (the one with torch):  /usr/bin/python3 tools/gen_golden_resample.py [out]

Format: tools/golden_json.py's schema, sections "pad" and "interpolate". Each case holds its input, the arguments as passed to torch.nn.functional (null: not passed),
"transposed" (the op ran on input.transpose(-1, -2), a strided view), PyTorch's output, the
upstream gradient and PyTorch's gradient (none for integer inputs). The interpolation answers are
those of PyTorch's AVX2 kernels (the CPU capability it picks on an AVX2 machine), whose
multiply-adds are fused; ditto always computes those.
"""
import os
import platform
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import document, enc, write  # noqa: E402  (the one schema of the golden files)

gen = torch.Generator().manual_seed(20261202)


def rnd(*shape, dtype=torch.float32):
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1).to(dtype)


def run(name, x, fn, transposed):
    floating = x.dtype.is_floating_point
    if floating:
        x.requires_grad_()
    xin = x.transpose(-1, -2) if transposed else x
    out = fn(xin)
    case = {'name': name, 'input': enc(x), 'transposed': transposed, 'output': enc(out)}
    if floating:
        gout = rnd(*out.shape, dtype=out.dtype)
        (g,) = torch.autograd.grad(out, [x], gout)
        case['grad_output'] = enc(gout)
        case['grad_input'] = enc(g)
    return case


def pad_case(name, shape, pad, mode='constant', value=None, dtype=torch.float32, transposed=False):
    if dtype == torch.int64:
        x = torch.randint(-50, 50, shape, generator=gen)
    else:
        x = rnd(*shape, dtype=dtype)
    kw = {} if value is None else {'value': value}
    case = run(name, x, lambda t: F.pad(t, pad, mode=mode, **kw), transposed)
    case.update({'pad': list(pad), 'mode': mode, 'value': value})
    return case


def pad_cases():
    c = []
    for mode in ('constant', 'reflect', 'replicate', 'circular'):
        c.append(pad_case(mode + '_1d', (2, 3, 7), (2, 3), mode))
        c.append(pad_case(mode + '_2d', (2, 2, 5, 6), (1, 2, 3, 4), mode))
        if mode != 'circular':  # PyTorch 1.13 pads only batched input circularly (2.x both)
            c.append(pad_case(mode + '_1d_unbatched', (3, 5), (1, 4), mode))
            c.append(pad_case(mode + '_2d_unbatched_strided', (3, 6, 5), (2, 0, 1, 3), mode, transposed=True))
        else:
            c.append(pad_case(mode + '_2d_strided', (1, 3, 6, 5), (2, 0, 1, 3), mode, transposed=True))
        c.append(pad_case(mode + '_3d', (1, 2, 4, 5, 3), (1, 2, 0, 3, 2, 1), mode))
        c.append(pad_case(mode + '_negative', (2, 2, 6, 7), (-1, 2, 3, -2), mode))
        c.append(pad_case(mode + '_float64', (2, 3, 6), (3, 2), mode, dtype=torch.float64))
    c.append(pad_case('reflect_wide', (1, 2, 9), (8, 8), 'reflect'))
    c.append(pad_case('replicate_wide', (1, 1, 2, 3), (7, 9, 5, 6), 'replicate'))
    c.append(pad_case('circular_whole', (1, 2, 4, 3), (3, 3, 4, 4), 'circular'))
    c.append(pad_case('constant_value', (2, 3, 4), (1, 2, 2, 1), 'constant', value=2.5))
    c.append(pad_case('constant_4d_pad', (2, 3, 2, 3, 2), (1, 0, 0, 1, 2, 1, 1, 1), 'constant', value=-1.0))
    c.append(pad_case('constant_int64', (3, 4), (2, 1, 0, 2), 'constant', value=7, dtype=torch.int64))
    c.append(pad_case('constant_crop_to_empty', (2, 3), (-2, -1), 'constant'))
    c.append(pad_case('constant_empty_input', (2, 0), (1, 2), 'constant', value=3.0))
    # eight planes or more: the backward's whole-plane form (cpu/resample_impl.h)
    c.append(pad_case('reflect_2d_planes', (3, 3, 5, 6), (2, 1, 4, 3), 'reflect'))
    c.append(pad_case('replicate_3d_planes', (2, 4, 3, 4, 5), (2, 1, 0, 3, 1, 2), 'replicate'))
    c.append(pad_case('constant_2d_planes', (4, 2, 5, 6), (-1, 2, 3, -2), 'constant', value=0.5))
    return c


def interp_case(name, shape, mode, size=None, scale_factor=None, align_corners=None, recompute=None,
                dtype=torch.float32, transposed=False):
    x = rnd(*shape, dtype=dtype)
    fn = lambda t: F.interpolate(t, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners,
                                 recompute_scale_factor=recompute)
    case = run(name, x, fn, transposed)
    case.update({'mode': mode, 'size': size, 'scale_factor': scale_factor, 'align_corners': align_corners,
                 'recompute_scale_factor': recompute})
    return case


def interp_cases():
    c = []
    shapes = {'linear': (2, 3, 7), 'bilinear': (2, 2, 5, 7), 'bicubic': (2, 2, 5, 7), 'trilinear': (1, 2, 3, 4, 5)}
    sizes = {'linear': ([13], [4], [7]), 'bilinear': ([9, 13], [3, 4], [5, 14]), 'bicubic': ([9, 13], [3, 4], [10, 7]),
             'trilinear': ([5, 7, 9], [2, 3, 3], [6, 8, 10])}
    for mode, shape in shapes.items():
        for i, size in enumerate(sizes[mode]):
            for ac in (False, True):
                c.append(interp_case('%s_size%d_ac%d' % (mode, i, ac), shape, mode, size=size, align_corners=ac))
        nd = len(shape) - 2
        c.append(interp_case(mode + '_scale', shape, mode, scale_factor=[1.7, 2.3, 1.5][:nd] if nd > 1 else 1.7))
        c.append(interp_case(mode + '_scale_down', shape, mode, scale_factor=0.6))
        c.append(interp_case(mode + '_scale_recompute', shape, mode, scale_factor=1.7, recompute=True))
        c.append(interp_case(mode + '_scale_ac', shape, mode, scale_factor=2.0, align_corners=True))
        c.append(interp_case(mode + '_float64', shape, mode, size=sizes[mode][0], dtype=torch.float64))
        c.append(interp_case(mode + '_float64_scale', shape, mode, scale_factor=2.5, dtype=torch.float64))
    c.append(interp_case('bilinear_strided', (2, 3, 6, 5), 'bilinear', scale_factor=2.0, transposed=True))
    c.append(interp_case('bicubic_strided', (1, 2, 6, 5), 'bicubic', size=[11, 9], transposed=True))
    c.append(interp_case('bilinear_to_1x1', (1, 2, 5, 6), 'bilinear', size=[1, 1]))
    c.append(interp_case('bicubic_from_1x1', (1, 2, 1, 1), 'bicubic', size=[3, 4]))
    for mode in ('nearest', 'nearest-exact'):
        for name, shape, size, sf in (('1d', (2, 3, 7), [13], None), ('1d_down', (2, 3, 7), [3], None),
                                      ('1d_x2', (2, 3, 5), [10], None), ('2d', (2, 2, 5, 7), [9, 13], None),
                                      ('2d_scale', (2, 2, 5, 7), None, [1.7, 2.3]),
                                      ('2d_down_scale', (1, 2, 9, 8), None, 0.45), ('3d', (1, 2, 3, 4, 5), [5, 7, 9], None),
                                      ('3d_scale', (1, 2, 3, 4, 5), None, 2.0)):
            c.append(interp_case('%s_%s' % (mode, name), shape, mode, size=size, scale_factor=sf))
        c.append(interp_case(mode + '_float64', (2, 2, 5, 7), mode, size=[8, 11], dtype=torch.float64))
        c.append(interp_case(mode + '_recompute', (2, 2, 5, 7), mode, scale_factor=1.3, recompute=True))
        c.append(interp_case(mode + '_strided', (2, 2, 5, 7), mode, size=[11, 6], transposed=True))
    # eight planes or more: the backward's whole-plane form (cpu/resample_impl.h)
    for mode, shape, kw in (('linear', (3, 3, 7), dict(size=[17])), ('bilinear', (3, 3, 6, 5), dict(size=[11, 9])),
                            ('bilinear', (2, 4, 6, 5), dict(scale_factor=2.0, align_corners=True)),
                            ('bicubic', (2, 4, 5, 6), dict(scale_factor=1.7)),
                            ('bicubic', (3, 3, 6, 5), dict(size=[4, 13], align_corners=True)),
                            ('trilinear', (1, 8, 3, 4, 5), dict(size=[5, 7, 6])),
                            ('nearest', (4, 4, 5, 7), dict(size=[9, 4])),
                            ('nearest-exact', (2, 4, 3, 4, 5), dict(scale_factor=1.6))):
        c.append(interp_case('%s_planes_%d' % (mode, len(c)), shape, mode, **kw))
    return c


def cpu_capability():
    for line in torch.__config__.show().splitlines():
        if 'CPU capability usage:' in line:
            return line.split(':')[1].strip()
    return None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'tests', 'data',
                                                               'pytorch-resample.json')
    torch.set_num_threads(1)
    meta = {
        'cpu_capability': cpu_capability(),
        'platform': platform.platform(),
        'debian_package': subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'python3-torch'],
                                         capture_output=True, text=True).stdout or None,
    }
    if meta['cpu_capability'] not in ('AVX2', 'AVX512'):
        sys.exit('run on a machine where PyTorch picks its AVX2 kernels (got %s)' % meta['cpu_capability'])
    write(path, document('tools/gen_golden_resample.py', {'pad': pad_cases(), 'interpolate': interp_cases()}, meta))
    print('wrote', os.path.normpath(path))


if __name__ == '__main__':
    main()
