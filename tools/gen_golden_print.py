#!/usr/bin/python3
"""Generate golden tensor-printing cases from the installed PyTorch (CPU).

Writes tests/data/pytorch-print.json (or the path given as the first argument): a JSON
object in tools/golden_json.py's schema, one section "cases".  Each case holds
  name           a unique, descriptive label
  tensor         the printed tensor's values, in the one encoding ({"dtype", "sizes", "data"})
  requires_grad  whether the printed tensor requires grad
  grad_fn        the grad_fn class name (e.g. "AddBackward0") or null
  str            exactly str(t) under PyTorch's default print options

The output is deterministic: every random case reseeds with torch.manual_seed, print
options are reset to the default profile, and the JSON is written with fixed key order.

Usage:  /usr/bin/python3 tools/gen_golden_print.py [out.json]   (needs Debian's python3-torch)
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import document, enc, write  # noqa: E402  (the one schema of the golden files)

NAN = float('nan')
INF = float('inf')


def bits_f32(*words):
  """A float32 tensor from raw bit patterns (for -nan and other exact values)."""
  return torch.from_numpy(np.array(words, dtype=np.uint32).view(np.float32).copy())


def randn(seed, *shape, dtype=torch.float32):
  torch.manual_seed(seed)
  return torch.randn(*shape, dtype=dtype)


def build_cases():
  f32, f64 = torch.float32, torch.float64
  c = []

  def add(name, t):
    c.append((name, t))

  # Small float32 vectors and matrices (float mode).
  add('f32_randn_5', randn(0, 5))
  add('f32_randn_2x3', randn(0, 2, 3))
  add('f32_randn_4x4', randn(1, 4, 4))
  add('f32_randn_3x4_x100', randn(2, 3, 4) * 100)
  add('f32_randn_5x1', randn(3, 5, 1))
  add('f32_randn_1x5', randn(3, 1, 5))
  add('f32_mixed_widths', torch.tensor([100.5, -2.25, 3.0]))
  add('f32_ratio_under_1000', torch.tensor([1234.5678, 5.5]))
  add('f32_point_one', torch.tensor([0.1, 0.2, 0.3]))
  # Scientific notation triggers.
  add('f32_sci_small', torch.tensor([1e-5, 1.0, 2.0]))
  add('f32_sci_large', torch.tensor([1e9, 1.5]))
  add('f32_sci_ratio', torch.tensor([0.001, 2.5]))
  add('f32_sci_min_below_1e-4', torch.tensor([5e-5, 0.02]))
  add('f32_sci_negative', torch.tensor([-3.25e-7, 4.5e3, -1.0]))
  add('f32_subnormal', torch.tensor([1e-40, 0.5]))
  add('f32_sci_randn_scaled', randn(4, 2, 3) * torch.tensor([1e-6, 1.0, 1e6]))
  # Integers stored in floats (int mode, trailing ".").
  add('f32_int_mode', torch.tensor([1.0, 2.0, 3.0]))
  add('f32_int_mode_negative', torch.tensor([-100.0, 5.0, 10.0]))
  add('f32_int_mode_sci_ratio', torch.tensor([1.0, 1e4]))
  add('f32_int_mode_sci_large', torch.tensor([1e9, 2e9]))
  add('f32_int_mode_1e8_ratio', torch.tensor([1e8, 3.0]))
  add('f32_int_mode_1e8', torch.tensor([1e8, -5e5, 0.0]))
  add('f32_int_mode_2d', torch.tensor([[1.0, -2.0], [30.0, 400.0]]))
  # Negative zero.
  add('f32_negzero_int_mode', torch.tensor([-0.0, 0.0, 1.0]))
  add('f32_all_zero_negzero', torch.tensor([0.0, -0.0]))
  add('f32_negzero_float_mode', torch.tensor([-0.0, 1.5, 2.25]))
  add('f32_negzero_sci', torch.tensor([-0.0, 1e-6, 2.0]))
  # nan / inf mixtures.
  add('f32_nan_inf_float', torch.tensor([NAN, INF, -INF, 1.5]))
  add('f32_nan_only', torch.tensor([NAN, NAN]))
  add('f32_inf_only', torch.tensor([INF, -INF, 0.0]))
  add('f32_nan_inf_int_mode', torch.tensor([1.0, NAN, INF, -INF, 2.0]))
  add('f32_nan_inf_sci', torch.tensor([1e-6, NAN, -INF, 3.0]))
  add('f32_negative_nan', bits_f32(0xffc00000, 0x3fc00000, 0x7fc00000))
  # Rounding ties (exact binary halves) must round half to even like Python.
  add('f64_round_ties_fixed', torch.tensor([0.03125, 1.5, 2.00005], dtype=f64))
  add('f64_round_ties_sci', torch.tensor([1.03125, 1e-5, 2.5e-5], dtype=f64))
  # Wide rows that wrap at 80 columns.
  add('f32_wrap_randn_30', randn(5, 30))
  add('f32_wrap_2d_3x20', randn(6, 3, 20))
  add('f32_wrap_sci_25', randn(7, 25) * 1e-5)
  add('i64_wrap_100', torch.arange(100) * 12345)
  add('f32_wrap_int_mode_40', torch.arange(40, dtype=f32) * 7)
  # 3-D and higher.
  add('f32_randn_2x3x4', randn(8, 2, 3, 4))
  add('f32_randn_2x2x2x3', randn(9, 2, 2, 2, 3))
  add('f32_randn_1x1x3', randn(10, 1, 1, 3))
  add('f32_randn_1x2x1x2x2', randn(11, 1, 2, 1, 2, 2))
  add('i64_arange_2x3x4', torch.arange(24).reshape(2, 3, 4))
  # Summarisation (numel > 1000).
  add('f32_sum_2000', randn(12, 2000))
  add('f32_sum_40x40', randn(13, 40, 40))
  add('f32_sum_3x500', randn(14, 3, 500))
  add('f32_sum_7x200', randn(15, 7, 200))
  add('f32_sum_6x200', randn(16, 6, 200))
  add('f32_sum_10x10x20', randn(17, 10, 10, 20))
  add('f32_sum_2x3x200', randn(29, 2, 3, 200))
  add('f32_sum_1x1100', randn(30, 1, 1100))
  add('f32_sum_int_mode', torch.arange(1500, dtype=f32) - 700)
  hidden = torch.full((2000,), 1.5)
  hidden[1000] = 1e10
  add('f32_sum_hidden_large', hidden)
  add('i64_sum_arange_1001', torch.arange(1001))
  add('i64_sum_hidden_wide', torch.cat([torch.arange(3), torch.tensor([-10**15] * 1000), torch.arange(3)]))
  add('f32_sum_sci_logspace', torch.logspace(-10, 10, 1200))
  add('bool_sum_1100', torch.arange(1100) % 3 == 0)
  # 0-dim.
  add('f32_scalar', torch.tensor(3.5))
  add('f32_scalar_int_mode', torch.tensor(-2.0))
  add('f32_scalar_sci', torch.tensor(1.25e-7))
  add('f32_scalar_nan', torch.tensor(NAN))
  add('i64_scalar', torch.tensor(7))
  add('f64_scalar', torch.tensor(-2.25, dtype=f64))
  add('bool_scalar', torch.tensor(True))
  # Empty.
  add('f32_empty', torch.tensor([]))
  add('f32_empty_0x3', torch.zeros(0, 3))
  add('f32_empty_2x0x3', torch.zeros(2, 0, 3))
  add('i64_empty', torch.zeros(0, dtype=torch.int64))
  add('bool_empty_2x0', torch.zeros(2, 0, dtype=torch.bool))
  add('f64_empty', torch.zeros(0, dtype=f64))
  add('i32_empty_0x1', torch.zeros(0, 1, dtype=torch.int32))
  # Bool and integer dtypes.
  add('bool_vec', torch.tensor([True, False]))
  add('bool_true_only', torch.tensor([True, True]))
  add('bool_2x3', torch.tensor([[True, False, True], [False, False, True]]))
  add('i64_vec', torch.tensor([1, -20, 300]))
  add('i64_extremes', torch.tensor([2**63 - 1, -2**63, 0]))
  add('i32_vec', torch.tensor([1, 2, 3], dtype=torch.int32))
  add('i32_2x3', torch.tensor([[1, -2, 3], [40, 50, -600]], dtype=torch.int32))
  add('i32_scalar', torch.tensor(-5, dtype=torch.int32))
  # float64 (dtype suffix).
  add('f64_randn_4', randn(18, 4, dtype=f64))
  add('f64_randn_3x3', randn(19, 3, 3, dtype=f64))
  add('f64_exp_3_digits', torch.tensor([1e-300, 1e300], dtype=f64))
  add('f64_int_mode', torch.tensor([3.0, -4.0], dtype=f64))
  add('f64_wrap_sci_12', randn(20, 12, dtype=f64) * 1e-8)
  # Autograd suffixes.
  return c


def build_grad_cases():
  c = []
  t = randn(21, 3).requires_grad_()
  c.append(('f32_requires_grad_3', t))
  c.append(('f32_requires_grad_2x2', randn(22, 2, 2).requires_grad_()))
  c.append(('f32_requires_grad_scalar', torch.tensor(3.5, requires_grad=True)))
  c.append(('f64_requires_grad', randn(23, 3, dtype=torch.float64).requires_grad_()))
  a = randn(24, 2, 3).requires_grad_()
  c.append(('f32_grad_fn_add', a + 1))
  b = randn(25, 3, dtype=torch.float64).requires_grad_()
  c.append(('f64_grad_fn_mul', b * 2))
  c.append(('f32_grad_fn_sum_scalar', a.sum()))
  # The last line is long enough that the suffix moves to its own line.
  w = (randn(26, 6) * 1e-5).requires_grad_()
  c.append(('f32_requires_grad_wrap_suffix', w))
  w2 = (randn(27, 2, 6) * 1e-5).requires_grad_()
  c.append(('f32_grad_fn_wrap_suffix', w2 * 3))
  w3 = randn(28, 10, dtype=torch.float64).requires_grad_()
  c.append(('f64_requires_grad_wrap', w3))
  c.append(('f32_requires_grad_5_fits', randn(31, 5).requires_grad_()))
  c.append(('f32_requires_grad_6_newline', randn(31, 6).requires_grad_()))
  c.append(('f32_requires_grad_8_newline', randn(32, 8).requires_grad_()))
  # dtype fits on the line, requires_grad moves to the next one.
  c.append(('f64_suffix_second_newline', randn(33, 4, dtype=torch.float64).requires_grad_()))
  c.append(('f64_suffix_both_newline', randn(34, 8, dtype=torch.float64).requires_grad_()))
  m = randn(35, 3, 7).requires_grad_()
  c.append(('f32_grad_fn_2d_newline', m * m))
  return c


def encode(name, t):
  grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
  return {
      'name': name,
      'tensor': enc(t),
      'requires_grad': bool(t.requires_grad),
      'grad_fn': grad_fn,
      'str': str(t),
  }


def main():
  here = os.path.dirname(os.path.abspath(__file__))
  out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'tests', 'data', 'pytorch-print.json')
  torch.set_printoptions(profile='default', sci_mode=None)
  torch.set_default_dtype(torch.float32)
  torch.set_num_threads(1)
  cases = [encode(n, t) for n, t in build_cases() + build_grad_cases()]
  names = [c['name'] for c in cases]
  assert len(names) == len(set(names)), 'duplicate case names'
  write(out, document('tools/gen_golden_print.py', {'cases': cases}), indent=1)
  print('wrote %d cases to %s' % (len(cases), out))


if __name__ == '__main__':
  main()
