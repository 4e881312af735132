#!/usr/bin/python3
"""Generate known-answer op cases from the installed PyTorch (CPU) for tests/test_pytorch_ops.cpp.

Writes tests/data/pytorch-ops.json (or the path given as the first argument).  Only results that
PyTorch defines exactly are recorded: dtypes, shapes, strides, storage offsets, integer and
boolean values, and floating values where IEEE 754 fixes the bits (+ - * /, sqrt, and PyTorch's
pow special cases x*x, 1/x, sqrt(x), 1/sqrt(x), ...).  Transcendental results (exp, log, sigmoid,
tanh, pow with general exponents) are checked for dtype and shape only.

Usage:  /usr/bin/python3 tools/gen_golden_ops.py [out.json]   (needs Debian's python3-torch, 1.13)

Layout of the JSON
------------------
{"torch_version": ..., "generator": ..., "sections": {SECTION: [CASE, ...], ...}} with sections
  promotion   result dtypes (and values) of binary/unary/reduction/cat/where/clamp/pow over every
              pair of ditto dtypes, and the combinations PyTorch refuses
  integer     exact integer/bool ops: broadcasting arithmetic, pow, clamp, reductions, max/min and
              arg indices (ties, NaN), comparisons, where, masked_fill, cat/stack, index_select,
              gather
  views       view geometry: sizes, strides, storage_offset, is_contiguous, shared storage, values
  factories   arange, linspace, eye, full, zeros, ones (exact bits)
  float_bits  IEEE-exact float32/float64 elementwise results on random and special inputs
  matmul      matmul/mm/bmm shapes and values for integer-valued float (and int64) inputs
  scatter     the index family's edge cases (test_scatter_gather_ops.py, _test_scatter_base): empty
              indices of every dtype and rank, 0-dim self/index/src, which shapes, dtypes and
              index values PyTorch accepts and which it refuses, for scatter_add, scatter_reduce,
              gather, index_add and index_select; integer-valued inputs, so the sums are exact

CASE = {"name": unique label, "op": op name, "args": {ARG_NAME: ARG, ...},
        and exactly one of
        "expect": RESULT | [RESULT, ...]   (a list for ops returning (values, indices))
        "error":  PyTorch's message (the op must raise ditto::Error)}

ARG is one of
  TENSOR   {"dtype": "bool"|"int32"|"int64"|"float32"|"float64", "sizes": [...], "data": [...]}
           data is row-major: true/false for bool, integers for int32/int64, and for floats the
           IEEE bit pattern as a hex string ("0x3f800000" float32, 16 hex digits float64).
           An optional "view": [STEP, ...] is applied to the tensor after it is built (each STEP
           is a list ["transpose", 0, 1], ["slice", dim, start|null, end|null, step], ...; see
           apply_chain below), so strided and offset inputs can be described.
  SCALAR   {"scalar": "int"|"float"|"bool", "value": int | hex bits of the double | bool}
           (a Python number, i.e. a wrapped scalar in PyTorch's promotion)
  [TENSOR, ...]   (cat/stack)
  plain JSON int / list of ints / bool / null / dtype name string, per op.

RESULT is a TENSOR without "view", plus for the views section "strides", "storage_offset",
"contiguous" and "shares_storage" (whether the result aliases the input's storage), and
"check": "dtype" when only dtype and sizes are defined (transcendentals).

Value comparison: bits must be equal, except that an expected NaN accepts any NaN (IEEE 754 and
PyTorch leave NaN sign and payload unspecified).

Notes on what is left out because PyTorch itself does not fix the result:
  * float add/sub with a non-trivial alpha (PyTorch's vector path fuses a + alpha*b),
  * relu/clamp/max/min on -0.0 against a zero bound (vector and scalar paths differ),
  * Python's `s / t`, which is t.reciprocal() * s (two roundings; ditto's operator/(Scalar,
    Tensor) divides once): the r-op cases use divisors whose reciprocals are exact, so both
    definitions agree,
  * integer overflow (undefined in C++).

PyTorch's own float arange/linspace bits depend on its CPU kernel level (default, AVX2, AVX512):
the AVX2/AVX512 kernels are compiled with a*b+c contracted into FMA and AVX512 has wider vectors.
The script therefore re-executes itself with ATEN_CPU_CAPABILITY=default, whose kernels evaluate
PyTorch's formulas with plain IEEE operations (ditto's policy: no contraction). Factory results
produced by PyTorch's vectorized loop carry "vectorized": true (see mark_vectorized). Generated
at the AVX2 and AVX512 levels instead, every other case is identical except NaN payloads.

The output is deterministic: inputs are fixed literals or come from seeded torch.Generator
streams, and the JSON is written with a fixed layout.
"""
import json
import os
import struct
import sys

# PyTorch's float arange/linspace bits depend on its CPU kernel level: the AVX2 kernels are
# compiled with a*b+c contracted into FMA. The baseline ("default") kernels evaluate the same
# formulas with plain IEEE operations, which is what ditto promises, so the cases are generated
# there. Re-executing keeps the output independent of the caller's environment.
if os.environ.get('ATEN_CPU_CAPABILITY') != 'default':
  os.environ['ATEN_CPU_CAPABILITY'] = 'default'
  os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np  # noqa: E402
import torch  # noqa: E402

f32, f64, i32, i64, b8 = torch.float32, torch.float64, torch.int32, torch.int64, torch.bool
DTYPES = [b8, i32, i64, f32, f64]
DNAME = {b8: 'bool', i32: 'int32', i64: 'int64', f32: 'float32', f64: 'float64'}
NAN, INF = float('nan'), float('inf')
ERRORS = (RuntimeError, IndexError, ValueError, TypeError)


# ----------------------------------------------------------------------------- encoding

def hex64(x):
  return '0x%016x' % struct.unpack('<Q', struct.pack('<d', float(x)))[0]


def enc_tensor(t):
  t = t.detach().contiguous()
  d = {'dtype': DNAME[t.dtype], 'sizes': list(t.shape)}
  flat = t.reshape(-1)
  if t.dtype == f32:
    d['data'] = ['0x%08x' % w for w in flat.numpy().view(np.uint32).tolist()]
  elif t.dtype == f64:
    d['data'] = ['0x%016x' % w for w in flat.numpy().view(np.uint64).tolist()]
  elif t.dtype == b8:
    d['data'] = [bool(v) for v in flat.tolist()]
  else:
    d['data'] = [int(v) for v in flat.tolist()]
  return d


class S:
  """A Python scalar argument (PyTorch: a wrapped number)."""

  def __init__(self, v):
    self.v = v

  def enc(self):
    if isinstance(self.v, bool):
      return {'scalar': 'bool', 'value': self.v}
    if isinstance(self.v, int):
      return {'scalar': 'int', 'value': self.v}
    return {'scalar': 'float', 'value': hex64(self.v)}


class In:
  """A tensor input: a base tensor plus an optional chain of view steps applied to it."""

  def __init__(self, base, chain=None):
    self.base = base
    self.chain = chain or []

  def tensor(self):
    return apply_chain(self.base, self.chain)

  def enc(self):
    d = enc_tensor(self.base)
    if self.chain:
      d['view'] = self.chain
    return d


def T(data, dtype, sizes=None):
  t = torch.tensor(data, dtype=dtype)
  if sizes is not None:
    t = t.reshape(sizes)
  return In(t)


def ar(sizes, dtype=i64, start=0):
  n = int(np.prod(sizes)) if sizes else 1
  return In(torch.arange(start, start + n, dtype=i64).to(dtype).reshape(sizes))


def enc_arg(a):
  if isinstance(a, (In, S)):
    return a.enc()
  if isinstance(a, torch.dtype):
    return DNAME[a]
  if isinstance(a, list) and a and isinstance(a[0], In):
    return [x.enc() for x in a]
  return a


def to_torch(a):
  if isinstance(a, In):
    return a.tensor()
  if isinstance(a, S):
    return a.v
  if isinstance(a, list) and a and isinstance(a[0], In):
    return [x.tensor() for x in a]
  return a


# ----------------------------------------------------------------------------- view chains

def apply_chain(t, chain):
  """The view steps shared with the C++ side (same names, same argument order)."""
  for step in chain:
    op, args = step[0], step[1:]
    if op == 'view':
      t = t.view(args[0])
    elif op == 'reshape':
      t = t.reshape(args[0])
    elif op == 'transpose':
      t = t.transpose(args[0], args[1])
    elif op == 't':
      t = t.t()
    elif op == 'permute':
      t = t.permute(args[0])
    elif op == 'select':
      t = t.select(args[0], args[1])
    elif op == 'slice':  # at::slice(dim, start, end, step): Python's x[..., start:end:step]
      t = torch.ops.aten.slice(t, args[0], args[1], args[2], args[3])
    elif op == 'narrow':
      t = t.narrow(args[0], args[1], args[2])
    elif op == 'expand':
      t = t.expand(args[0])
    elif op == 'squeeze':
      t = t.squeeze() if not args else t.squeeze(args[0])
    elif op == 'unsqueeze':
      t = t.unsqueeze(args[0])
    elif op == 'flatten':
      t = t.flatten(args[0], args[1])
    elif op == 'contiguous':
      t = t.contiguous()
    else:
      raise ValueError(op)
  return t


# ----------------------------------------------------------------------------- ops

def torch_op(op, a):
  """Runs one case's op in PyTorch, with the Python semantics the case name promises."""
  g = lambda k, d=None: to_torch(a.get(k, d))
  x = g('self')
  if op in ('add', 'sub'):
    fn = torch.add if op == 'add' else torch.sub
    if 'alpha' in a:
      return fn(x, g('other'), alpha=g('alpha'))
    return x + g('other') if op == 'add' else x - g('other')
  if op == 'mul':
    return x * g('other')
  if op == 'div':
    return x / g('other')
  if op == 'radd':
    return g('other') + x
  if op == 'rsub':
    return g('other') - x
  if op == 'rmul':
    return g('other') * x
  if op == 'rdiv':
    return g('other') / x
  if op in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
    return getattr(torch, op)(x, g('other'))
  if op in ('neg', 'abs', 'exp', 'log', 'sqrt', 'rsqrt', 'sigmoid', 'tanh', 'relu', 'sign'):
    return getattr(torch, op)(x)
  if op == 'pow':
    return torch.pow(x, g('exponent'))
  if op == 'clamp':
    return torch.clamp(x, min=g('min'), max=g('max'))
  if op == 'where':
    return torch.where(g('condition'), x, g('other'))
  if op == 'masked_fill':
    return x.masked_fill(g('mask'), g('value'))
  if op == 'sum':
    kw = {'dtype': g('dtype')} if a.get('dtype') else {}
    if 'dim' in a:
      return torch.sum(x, g('dim'), keepdim=g('keepdim', False), **kw)
    return torch.sum(x, **kw)
  if op == 'mean':
    return torch.mean(x, g('dim'), keepdim=g('keepdim', False)) if 'dim' in a else torch.mean(x)
  if op == 'prod':
    return torch.prod(x, g('dim'), keepdim=g('keepdim', False)) if 'dim' in a else torch.prod(x)
  if op in ('max', 'min'):
    if 'dim' in a:
      r = getattr(torch, op)(x, g('dim'), keepdim=g('keepdim', False))
      return [r.values, r.indices]
    return getattr(torch, op)(x)
  if op in ('amax', 'amin'):
    return getattr(torch, op)(x, g('dim'), keepdim=g('keepdim', False))
  if op in ('argmax', 'argmin'):
    return getattr(torch, op)(x, g('dim'), keepdim=g('keepdim', False))
  if op in ('cat', 'stack'):
    return getattr(torch, op)(g('tensors'), g('dim'))
  if op == 'index_select':
    return torch.index_select(x, g('dim'), g('index'))
  if op == 'gather':
    return torch.gather(x, g('dim'), g('index'))
  if op == 'scatter_add':
    return torch.scatter_add(x, g('dim'), g('index'), g('src'))
  if op == 'scatter_reduce':
    return torch.scatter_reduce(x, g('dim'), g('index'), g('src'), g('reduce'), include_self=g('include_self', True))
  if op == 'index_add':
    return torch.index_add(x, g('dim'), g('index'), g('source'), alpha=g('alpha', 1))
  if op in ('matmul', 'mm', 'bmm'):
    return getattr(torch, op)(x, g('other'))
  if op == 'arange':
    kw = {'dtype': g('dtype')} if a.get('dtype') else {}
    if 'start' in a:
      return torch.arange(g('start'), g('end'), g('step'), **kw)
    return torch.arange(g('end'), **kw)
  if op == 'linspace':
    return torch.linspace(g('start'), g('end'), g('steps'), dtype=g('dtype'))
  if op == 'eye':
    if a.get('m') is not None:
      return torch.eye(g('n'), g('m'), dtype=g('dtype'))
    return torch.eye(g('n'), dtype=g('dtype'))
  if op == 'full':
    kw = {'dtype': g('dtype')} if a.get('dtype') else {}
    return torch.full(g('size'), g('value'), **kw)
  if op in ('zeros', 'ones'):
    kw = {'dtype': g('dtype')} if a.get('dtype') else {}
    return getattr(torch, op)(g('size'), **kw)
  if op == 'chain':
    return apply_chain(x, a['chain'])
  raise ValueError(op)


class Section:

  def __init__(self, name):
    self.name = name
    self.cases = []
    self.names = set()

  def add(this, name, op, check=None, geometry=False, **args):
    assert name not in this.names, name
    this.names.add(name)
    case = {'name': name, 'op': op, 'args': {k: enc_arg(v) for k, v in args.items()}}
    try:
      r = torch_op(op, args)
    except ERRORS as e:
      case['error'] = str(e).split('\n')[0][:200]
      this.cases.append(case)
      return case
    if isinstance(r, (list, tuple)):
      case['expect'] = [enc_tensor(t) for t in r]
    else:
      assert isinstance(r, torch.Tensor), (name, r)
      e = enc_tensor(r)
      if check:
        e['check'] = check
        del e['data']
      if geometry:
        base = args['self'].tensor()
        e['strides'] = list(r.stride())
        e['storage_offset'] = r.storage_offset()
        e['contiguous'] = r.is_contiguous()
        e['shares_storage'] = r.storage().data_ptr() == base.storage().data_ptr()
      case['expect'] = e
    this.cases.append(case)
    return case


# ----------------------------------------------------------------------------- 1. promotion

# Values per dtype: A is the left operand, B the right one (B has no zero except bool's False).
# A has exact reciprocals, so Python's `s / A` (A.reciprocal() * s) equals s / A.
A1 = {b8: [True, False, True], i32: [1, -2, 4], i64: [1, -2, 4], f32: [0.25, -2.0, 4.0], f64: [0.25, -2.0, 4.0]}
B1 = {b8: [True, True, False], i32: [2, 4, -1], i64: [2, 4, -1], f32: [0.5, 4.0, -2.5], f64: [0.5, 4.0, -2.5]}
A0 = {b8: True, i32: 4, i64: 4, f32: 2.0, f64: 2.0}
B0 = {b8: True, i32: 2, i64: 2, f32: 2.5, f64: 2.5}


def promotion(sec):
  binops = ['add', 'sub', 'mul', 'div', 'eq', 'lt']
  layouts = [('1d', '1d'), ('1d', '0d'), ('0d', '1d'), ('0d', '0d')]
  for op in binops:
    for la, lb in layouts:
      for da in DTYPES:
        for db in DTYPES:
          a = In(torch.tensor(A1[da] if la == '1d' else A0[da], dtype=da))
          b = In(torch.tensor(B1[db] if lb == '1d' else B0[db], dtype=db))
          sec.add(f'{op}_{DNAME[da]}{la}_{DNAME[db]}{lb}', op, self=a, other=b)
  # tensor (op) Python scalar, both orders for the arithmetic ops.
  scalars = [('int', S(3)), ('float', S(2.5)), ('bool', S(True)), ('negint', S(-2)), ('float_whole', S(2.0))]
  for op in binops + ['radd', 'rsub', 'rmul', 'rdiv', 'ge', 'ne']:
    for dt in DTYPES:
      for la in ('1d', '0d'):
        for sname, s in scalars:
          if la == '0d' and sname in ('negint', 'float_whole'):
            continue
          a = In(torch.tensor(A1[dt] if la == '1d' else A0[dt], dtype=dt))
          sec.add(f'{op}_{DNAME[dt]}{la}_scalar_{sname}', op, self=a, other=s)
  # add with alpha
  for dt in DTYPES:
    for alpha in (S(2), S(2.0), S(True)):
      a, b = In(torch.tensor(A1[dt], dtype=dt)), In(torch.tensor(B1[dt], dtype=dt))
      an = {int: 'int', float: 'float', bool: 'bool'}[type(alpha.v)]
      sec.add(f'add_alpha_{an}_{DNAME[dt]}', 'add', self=a, other=b, alpha=alpha)
      sec.add(f'sub_alpha_{an}_{DNAME[dt]}', 'sub', self=a, other=b, alpha=alpha)
  # unary ops
  exact_unary = ['neg', 'abs', 'sqrt', 'rsqrt', 'relu', 'sign']
  for op in exact_unary + ['exp', 'log', 'sigmoid', 'tanh']:
    for dt in DTYPES:
      for la in ('1d', '0d'):
        a = In(torch.tensor(A1[dt] if la == '1d' else A0[dt], dtype=dt))
        sec.add(f'{op}_{DNAME[dt]}{la}', op, check=None if op in exact_unary else 'dtype', self=a)
  # reductions
  for dt in DTYPES:
    x = In(torch.tensor([A1[dt], B1[dt]], dtype=dt))
    sec.add(f'sum_all_{DNAME[dt]}', 'sum', self=x)
    sec.add(f'sum_dim0_{DNAME[dt]}', 'sum', self=x, dim=[0])
    sec.add(f'sum_dim1_keep_{DNAME[dt]}', 'sum', self=x, dim=[1], keepdim=True)
    for odt in DTYPES:
      sec.add(f'sum_all_{DNAME[dt]}_dtype_{DNAME[odt]}', 'sum', self=x, dtype=odt)
    sec.add(f'prod_all_{DNAME[dt]}', 'prod', self=x)
    sec.add(f'prod_dim1_{DNAME[dt]}', 'prod', self=x, dim=1)
    sec.add(f'mean_all_{DNAME[dt]}', 'mean', self=x)
    sec.add(f'mean_dim0_{DNAME[dt]}', 'mean', self=x, dim=[0])
    sec.add(f'max_all_{DNAME[dt]}', 'max', self=x)
    sec.add(f'min_all_{DNAME[dt]}', 'min', self=x)
    sec.add(f'max_dim1_{DNAME[dt]}', 'max', self=x, dim=1)
    sec.add(f'argmax_all_{DNAME[dt]}', 'argmax', self=x, dim=None)
    sec.add(f'argmin_dim0_{DNAME[dt]}', 'argmin', self=x, dim=0)
    sec.add(f'amax_dim1_{DNAME[dt]}', 'amax', self=x, dim=[1])
  # pow
  for dt in DTYPES:
    a = In(torch.tensor(A1[dt], dtype=dt))
    for sname, s in [('int2', S(2)), ('int0', S(0)), ('int_neg1', S(-1)), ('float2', S(2.0)), ('float_half', S(0.5)),
                     ('bool_true', S(True))]:
      sec.add(f'pow_{DNAME[dt]}_scalar_{sname}', 'pow', self=a, exponent=s)
    for de in DTYPES:
      e = In(torch.tensor([2, 1, 3], dtype=de) if de != b8 else torch.tensor([True, False, True]))
      sec.add(f'pow_{DNAME[dt]}_tensor_{DNAME[de]}', 'pow', check='dtype', self=a, exponent=e)
  # where
  cond = In(torch.tensor([True, False, True]))
  for da in DTYPES:
    for db in DTYPES:
      sec.add(f'where_{DNAME[da]}_{DNAME[db]}', 'where', condition=cond, self=In(torch.tensor(A1[da], dtype=da)),
              other=In(torch.tensor(B1[db], dtype=db)))
      sec.add(f'where_{DNAME[da]}_{DNAME[db]}0d', 'where', condition=cond, self=In(torch.tensor(A1[da], dtype=da)),
              other=In(torch.tensor(B0[db], dtype=db)))
    for sname, s in scalars[:3]:
      sec.add(f'where_{DNAME[da]}_scalar_{sname}', 'where', condition=cond, self=In(torch.tensor(A1[da], dtype=da)),
              other=s)
  sec.add('where_cond_int64', 'where', condition=In(torch.tensor([1, 0, 1])), self=In(torch.tensor(A1[i64])),
          other=In(torch.tensor(B1[i64])))
  # cat of mixed dtypes
  for da in DTYPES:
    for db in DTYPES:
      sec.add(f'cat_{DNAME[da]}_{DNAME[db]}', 'cat', tensors=[In(torch.tensor(A1[da], dtype=da)),
                                                             In(torch.tensor(B1[db][:2], dtype=db))], dim=0)
      sec.add(f'stack_{DNAME[da]}_{DNAME[db]}', 'stack', tensors=[In(torch.tensor(A1[da], dtype=da)),
                                                                 In(torch.tensor(B1[db], dtype=db))], dim=0)
  sec.add('cat_bool_int32_float64', 'cat', tensors=[In(torch.tensor([True])), In(torch.tensor([7], dtype=i32)),
                                                    In(torch.tensor([0.25], dtype=f64))], dim=0)
  # clamp bounds
  bounds = [('int', S(-1), S(3)), ('float', S(-1.5), S(2.5)), ('bool', S(False), S(True)), ('int_float', S(-1), S(2.5)),
            ('minonly_float', S(0.5), None), ('maxonly_float', None, S(0.5)), ('minonly_int', S(0), None)]
  for dt in DTYPES:
    for bname, lo, hi in bounds:
      sec.add(f'clamp_{DNAME[dt]}_{bname}', 'clamp', self=In(torch.tensor(A1[dt], dtype=dt)), min=lo, max=hi)


# ----------------------------------------------------------------------------- 2. integer ops

def integer(sec):
  x23 = T([[3, -1, 4], [-1, 5, -9]], i64)
  r3 = T([2, -7, 1], i64)
  c21 = T([[10], [-20]], i64)
  x32 = T([[3, -1], [4, 1], [-5, 9]], i32)
  for op in ('add', 'sub', 'mul'):
    sec.add(f'{op}_2x3_3', op, self=x23, other=r3)
    sec.add(f'{op}_2x3_2x1', op, self=x23, other=c21)
    sec.add(f'{op}_2x1_1x3', op, self=c21, other=In(torch.tensor([[1, 2, 3]])))
    sec.add(f'{op}_int32_3x2_1x1x2', op, self=x32, other=In(torch.tensor([[[7, -8]]], dtype=i32)))
    sec.add(f'{op}_int32_2x1x2_3x1', op, self=In(torch.tensor([[[1, 2]], [[3, 4]]], dtype=i32)),
            other=In(torch.tensor([[5], [6], [7]], dtype=i32)))
    sec.add(f'{op}_transposed_inputs', op, self=In(x23.base, [['t']]), other=In(torch.tensor([[1, 2], [3, 4], [5, 6]]), []))
    sec.add(f'{op}_strided_slices', op, self=In(torch.arange(12).reshape(3, 4), [['slice', 1, 0, None, 2]]),
            other=In(torch.arange(20).reshape(5, 4), [['slice', 0, 1, 4, 1], ['slice', 1, None, None, 3]]))
    sec.add(f'{op}_int32_int64_broadcast', op, self=x32, other=In(torch.tensor([100, -100], dtype=i64)))
    sec.add(f'{op}_broadcast_mismatch', op, self=x23, other=In(torch.tensor([1, 2])))
    sec.add(f'{op}_empty_broadcast', op, self=In(torch.zeros(0, 3, dtype=i64)), other=r3)
  sec.add('add_alpha_2', 'add', self=x23, other=r3, alpha=S(2))
  sec.add('add_alpha_neg3', 'add', self=x23, other=r3, alpha=S(-3))
  sec.add('sub_alpha_2', 'sub', self=x23, other=r3, alpha=S(2))
  sec.add('add_alpha_float_on_int', 'add', self=x23, other=r3, alpha=S(2.5))
  sec.add('add_alpha_int_on_float', 'add', self=In(torch.tensor([1.5, 2.0])), other=In(torch.tensor([0.25, -1.0])),
          alpha=S(3))
  sec.add('add_scalar_int', 'add', self=x23, other=S(-7))
  sec.add('mul_scalar_int', 'mul', self=x23, other=S(-3))
  sec.add('sub_scalar_int', 'sub', self=x23, other=S(10))
  sec.add('rsub_scalar_int', 'rsub', self=x23, other=S(10))
  sec.add('div_int_true', 'div', self=In(torch.tensor([7, -7, 0, 1, 9, -3])), other=In(torch.tensor([2, 2, 5, 3, -4, 0])))
  sec.add('div_int_by_zero', 'div', self=In(torch.tensor([1, -1, 0])), other=In(torch.tensor([0, 0, 0])))
  sec.add('div_int_scalar', 'div', self=x23, other=S(4))
  # pow
  base = T([-3, -2, -1, 0, 1, 2, 3], i64)
  for e in (0, 1, 2, 3, 5, -1, -2):
    sec.add(f'pow_int64_{e}'.replace('-', 'neg'), 'pow', self=base, exponent=S(e))
    sec.add(f'pow_int32_{e}'.replace('-', 'neg'), 'pow', self=In(base.base.to(i32)), exponent=S(e))
  sec.add('pow_int_tensor_tensor', 'pow', self=In(torch.tensor([2, -3, 5, 0, 7, 1])),
          exponent=In(torch.tensor([3, 3, 0, 0, 1, 9])))
  sec.add('pow_int_tensor_negative_exps', 'pow', self=In(torch.tensor([-2, -1, -1, 0, 1, 2, 3])),
          exponent=In(torch.tensor([-1, -1, -2, -1, -5, -2, -1])))
  sec.add('pow_int_tensor_broadcast', 'pow', self=In(torch.tensor([[1], [2], [-3]])), exponent=In(torch.tensor([0, 1, 2, 3])))
  # abs, neg, relu
  for dt in (i32, i64):
    v = In(torch.tensor([[-5, 0, 7], [3, -1, -100]], dtype=dt))
    sec.add(f'abs_{DNAME[dt]}', 'abs', self=v)
    sec.add(f'neg_{DNAME[dt]}', 'neg', self=v)
    sec.add(f'relu_{DNAME[dt]}', 'relu', self=v)
    sec.add(f'neg_{DNAME[dt]}_transposed', 'neg', self=In(v.base, [['t']]))
  # clamp
  cv = T([-5, -2, -1, 0, 1, 2, 3, 4, 10], i64)
  sec.add('clamp_int_both', 'clamp', self=cv, min=S(-2), max=S(3))
  sec.add('clamp_int_min', 'clamp', self=cv, min=S(0), max=None)
  sec.add('clamp_int_max', 'clamp', self=cv, min=None, max=S(1))
  sec.add('clamp_int_min_gt_max', 'clamp', self=cv, min=S(4), max=S(-1))
  sec.add('clamp_int32_both', 'clamp', self=In(cv.base.to(i32)), min=S(-1), max=S(2))
  sec.add('clamp_int_none', 'clamp', self=cv, min=None, max=None)
  # sum / prod over dims
  x = In(torch.tensor([[[1, -2, 3, 0], [2, 2, -1, 1], [-3, 1, 1, 2]], [[0, 1, -1, 3], [1, -2, 2, -1], [2, 3, 0, 1]]]))
  for dims in ([0], [1], [2], [-1], [0, 2], [-1, 0], [0, 1, 2], []):
    for kd in (False, True):
      tag = 'x'.join(str(d).replace('-', 'n') for d in dims) or 'none'
      sec.add(f'sum_dims_{tag}_keep{int(kd)}', 'sum', self=x, dim=dims, keepdim=kd)
      sec.add(f'sum_int32_dims_{tag}_keep{int(kd)}', 'sum', self=In(x.base.to(i32)), dim=dims, keepdim=kd)
  for d in (0, 1, 2, -1, -3):
    for kd in (False, True):
      sec.add(f'prod_dim{d}_keep{int(kd)}'.replace('-', 'n'), 'prod', self=x, dim=d, keepdim=kd)
  sec.add('prod_all', 'prod', self=In(torch.tensor([[1, -2, 3], [2, 2, -1]])))
  sec.add('prod_int32_dim1', 'prod', self=In(torch.tensor([[1, -2, 3], [2, 2, -1]], dtype=i32)), dim=1)
  sec.add('sum_transposed_dim0', 'sum', self=In(x.base, [['transpose', 0, 2]]), dim=[0], keepdim=False)
  sec.add('sum_dtype_int32', 'sum', self=x, dtype=i32)
  sec.add('sum_dim_dtype_float64', 'sum', self=x, dim=[1], keepdim=True, dtype=f64)
  sec.add('sum_bad_dim', 'sum', self=x, dim=[3], keepdim=False)
  sec.add('sum_repeated_dim', 'sum', self=x, dim=[1, -2], keepdim=False)
  sec.add('sum_empty_dim0', 'sum', self=In(torch.zeros(0, 3, dtype=i64)), dim=[0], keepdim=False)
  sec.add('prod_empty_dim0', 'prod', self=In(torch.zeros(0, 3, dtype=i64)), dim=0, keepdim=False)
  for dt in (f32, f64):
    fx = In(torch.tensor([[0.5, 0.25, 0.0], [0.0, 0.0, -0.125]], dtype=dt))
    sec.add(f'sum_{DNAME[dt]}_dtype_bool_all', 'sum', self=fx, dtype=b8)
    sec.add(f'sum_{DNAME[dt]}_dtype_bool_dim1', 'sum', self=fx, dim=[1], keepdim=False, dtype=b8)
    sec.add(f'sum_{DNAME[dt]}_dtype_int64_dim0', 'sum', self=fx, dim=[0], keepdim=False, dtype=i64)
  sec.add('sum_int64_dtype_bool_dim1', 'sum', self=In(torch.tensor([[0, 2, 0], [0, 0, 0]])), dim=[1], keepdim=False,
          dtype=b8)
  sec.add('sum_bool_dim', 'sum', self=In(torch.tensor([[True, False, True], [True, True, True]])), dim=[1], keepdim=False)
  # max/min/argmax/argmin with ties
  tie = In(torch.tensor([[3, 7, 7, 1], [5, 5, 2, 5], [0, -1, 0, -1]]))
  for fn in ('max', 'min'):
    for d in (0, 1, -1):
      for kd in (False, True):
        sec.add(f'{fn}_ties_dim{d}_keep{int(kd)}'.replace('-', 'n'), fn, self=tie, dim=d, keepdim=kd)
    sec.add(f'{fn}_ties_all', fn, self=tie)
    sec.add(f'{fn}_ties_int32_dim1', fn, self=In(tie.base.to(i32)), dim=1, keepdim=False)
    sec.add(f'{fn}_bool_dim1', fn, self=In(torch.tensor([[False, True, True], [False, False, False]])), dim=1)
    sec.add(f'{fn}_empty', fn, self=In(torch.zeros(0, dtype=i64)))
    sec.add(f'{fn}_0dim_dim0', fn, self=In(torch.tensor(5)), dim=0)
  for fn in ('argmax', 'argmin'):
    sec.add(f'{fn}_ties_all', fn, self=tie, dim=None)
    for d in (0, 1, -2):
      for kd in (False, True):
        sec.add(f'{fn}_ties_dim{d}_keep{int(kd)}'.replace('-', 'n'), fn, self=tie, dim=d, keepdim=kd)
    sec.add(f'{fn}_all_keepdim', fn, self=tie, dim=None, keepdim=True)
    sec.add(f'{fn}_constant', fn, self=In(torch.full((2, 5), 4)), dim=1)
    sec.add(f'{fn}_transposed', fn, self=In(tie.base, [['t']]), dim=1)
    sec.add(f'{fn}_empty', fn, self=In(torch.zeros(0, dtype=i64)), dim=None)
  for fn in ('amax', 'amin'):
    for dims in ([0], [1], [0, 1], [-1]):
      sec.add(f'{fn}_ties_dims_{"x".join(map(str, dims))}'.replace('-', 'n'), fn, self=tie, dim=dims, keepdim=False)
    sec.add(f'{fn}_ties_keep', fn, self=tie, dim=[1], keepdim=True)
  # float ties, NaN and infinities: the values and the indices
  for dt in (f32, f64):
    fl = In(torch.tensor([[1.5, NAN, 2.0, NAN], [-INF, -INF, 0.5, 0.5], [INF, 2.0, INF, -1.0], [0.25, 0.25, 0.25, 0.25]],
                         dtype=dt))
    n = DNAME[dt]
    for fn in ('max', 'min'):
      for d in (0, 1):
        sec.add(f'{fn}_{n}_nan_ties_dim{d}', fn, self=fl, dim=d, keepdim=False)
      sec.add(f'{fn}_{n}_nan_all', fn, self=fl)
      sec.add(f'{fn}_{n}_no_nan_all', fn, self=In(fl.base, [['slice', 0, 1, None, 1]]))
    for fn in ('argmax', 'argmin'):
      for d in (0, 1, None):
        sec.add(f'{fn}_{n}_nan_ties_dim{d}', fn, self=fl, dim=d, keepdim=False)
      sec.add(f'{fn}_{n}_no_nan_dim1', fn, self=In(fl.base, [['slice', 0, 1, None, 1]]), dim=1, keepdim=False)
      sec.add(f'{fn}_{n}_no_nan_all', fn, self=In(fl.base, [['slice', 0, 1, None, 1]]), dim=None, keepdim=False)
    for fn in ('amax', 'amin'):
      sec.add(f'{fn}_{n}_nan_dim1', fn, self=fl, dim=[1], keepdim=False)
  # comparisons
  ca = In(torch.tensor([[1, 5, -3], [2, 2, 0]]))
  cb = In(torch.tensor([2, 5, -4]))
  for op in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
    sec.add(f'{op}_int_broadcast', op, self=ca, other=cb)
    sec.add(f'{op}_int_scalar', op, self=ca, other=S(2))
    sec.add(f'{op}_int_scalar_float', op, self=ca, other=S(1.5))
    sec.add(f'{op}_int32_int64', op, self=In(ca.base.to(i32)), other=cb)
    sec.add(f'{op}_bool_bool', op, self=In(torch.tensor([True, False, True, False])),
            other=In(torch.tensor([True, True, False, False])))
    sec.add(f'{op}_float_nan_inf', op, self=In(torch.tensor([NAN, 1.0, INF, -INF, 0.0, NAN])),
            other=In(torch.tensor([NAN, NAN, INF, 1.0, -0.0, 2.0])))
    sec.add(f'{op}_float_scalar_nan', op, self=In(torch.tensor([NAN, 1.0, 2.0])), other=S(NAN))
    sec.add(f'{op}_mismatch', op, self=ca, other=In(torch.tensor([1, 2])))
  # where
  w_c = In(torch.tensor([[True], [False]]))
  sec.add('where_broadcast3', 'where', condition=w_c, self=In(torch.tensor([[1, 2, 3]])),
          other=In(torch.tensor([[-1, -2, -3], [-4, -5, -6]])))
  sec.add('where_broadcast_0d', 'where', condition=In(torch.tensor([True, False, False, True])), self=In(torch.tensor(7)),
          other=In(torch.tensor([1, 2, 3, 4])))
  sec.add('where_scalar_other', 'where', condition=In(torch.tensor([True, False, True])), self=In(torch.tensor([1, 2, 3])),
          other=S(-9))
  sec.add('where_int32_scalar_other', 'where', condition=In(torch.tensor([True, False, True])),
          self=In(torch.tensor([1, 2, 3], dtype=i32)), other=S(-9))
  sec.add('where_mismatch', 'where', condition=In(torch.tensor([True, False, True])), self=In(torch.tensor([1, 2])),
          other=In(torch.tensor([1, 2, 3])))
  sec.add('where_transposed', 'where', condition=In(torch.tensor([[True, False], [False, True], [True, True]]), [['t']]),
          self=In(torch.arange(6).reshape(2, 3)), other=In(torch.arange(10, 16).reshape(3, 2), [['t']]))
  # masked_fill
  mf = In(torch.arange(6).reshape(2, 3))
  sec.add('masked_fill_same_shape', 'masked_fill', self=mf, mask=In(torch.tensor([[True, False, True], [False, False, True]])),
          value=S(-1))
  sec.add('masked_fill_row_mask', 'masked_fill', self=mf, mask=In(torch.tensor([False, True, True])), value=S(100))
  sec.add('masked_fill_col_mask', 'masked_fill', self=mf, mask=In(torch.tensor([[True], [False]])), value=S(7))
  sec.add('masked_fill_0d_mask', 'masked_fill', self=mf, mask=In(torch.tensor(True)), value=S(3))
  sec.add('masked_fill_int_float_value', 'masked_fill', self=mf, mask=In(torch.tensor([False, True, True])), value=S(2.5))
  sec.add('masked_fill_int_bool_value', 'masked_fill', self=mf, mask=In(torch.tensor([False, True, True])), value=S(True))
  sec.add('masked_fill_float_nan', 'masked_fill', self=In(torch.tensor([1.0, 2.0, 3.0])),
          mask=In(torch.tensor([True, False, True])), value=S(NAN))
  sec.add('masked_fill_float_int_value', 'masked_fill', self=In(torch.tensor([1.0, 2.0, 3.0], dtype=f64)),
          mask=In(torch.tensor([True, False, True])), value=S(5))
  sec.add('masked_fill_bool', 'masked_fill', self=In(torch.tensor([True, False, False])),
          mask=In(torch.tensor([True, True, False])), value=S(False))
  sec.add('masked_fill_mask_bad_shape', 'masked_fill', self=mf, mask=In(torch.tensor([True, False])), value=S(1))
  sec.add('masked_fill_mask_larger', 'masked_fill', self=In(torch.tensor([1, 2, 3])),
          mask=In(torch.tensor([[True, False, True], [False, True, False]])), value=S(0))
  sec.add('masked_fill_transposed', 'masked_fill', self=In(mf.base, [['t']]),
          mask=In(torch.tensor([[True, False], [False, False], [True, True]])), value=S(-5))
  # cat / stack
  p = In(torch.arange(6).reshape(2, 3))
  q = In(torch.arange(10, 16).reshape(2, 3))
  r = In(torch.arange(20, 28).reshape(2, 4))
  s = In(torch.arange(30, 33).reshape(1, 3))
  sec.add('cat_dim0', 'cat', tensors=[p, q, s], dim=0)
  sec.add('cat_dim1', 'cat', tensors=[p, r], dim=1)
  sec.add('cat_dim_neg1', 'cat', tensors=[p, q, r], dim=-1)
  sec.add('cat_dim_neg2', 'cat', tensors=[p, s], dim=-2)
  sec.add('cat_single', 'cat', tensors=[p], dim=1)
  sec.add('cat_3d_dim1', 'cat', tensors=[In(torch.arange(12).reshape(2, 3, 2)), In(torch.arange(100, 104).reshape(2, 1, 2))],
          dim=1)
  sec.add('cat_3d_dim2', 'cat', tensors=[In(torch.arange(12).reshape(2, 3, 2)), In(torch.arange(100, 106).reshape(2, 3, 1))],
          dim=2)
  sec.add('cat_transposed_inputs', 'cat', tensors=[In(p.base, [['t']]), In(q.base, [['t']])], dim=1)
  sec.add('cat_int32', 'cat', tensors=[In(p.base.to(i32)), In(q.base.to(i32))], dim=0)
  sec.add('cat_bool', 'cat', tensors=[In(torch.tensor([True, False])), In(torch.tensor([False]))], dim=0)
  sec.add('cat_with_empty_rows', 'cat', tensors=[p, In(torch.zeros(0, 3, dtype=i64)), q], dim=0)
  sec.add('cat_legacy_empty_1d', 'cat', tensors=[p, In(torch.zeros(0, dtype=i64))], dim=0)
  sec.add('cat_mismatch', 'cat', tensors=[p, r], dim=0)
  sec.add('cat_rank_mismatch', 'cat', tensors=[p, In(torch.arange(3))], dim=0)
  sec.add('cat_bad_dim', 'cat', tensors=[p, q], dim=2)
  sec.add('cat_0dim', 'cat', tensors=[In(torch.tensor(1)), In(torch.tensor(2))], dim=0)
  for d in (0, 1, 2, -1, -2, -3):
    sec.add(f'stack_dim{d}'.replace('-', 'n'), 'stack', tensors=[p, q], dim=d)
  sec.add('stack_three_dim1', 'stack', tensors=[p, q, In(torch.arange(40, 46).reshape(2, 3))], dim=1)
  sec.add('stack_0dim', 'stack', tensors=[In(torch.tensor(1)), In(torch.tensor(2)), In(torch.tensor(3))], dim=0)
  sec.add('stack_mismatch', 'stack', tensors=[p, r], dim=0)
  sec.add('stack_bad_dim', 'stack', tensors=[p, q], dim=3)
  sec.add('stack_transposed', 'stack', tensors=[In(p.base, [['t']]), In(q.base, [['t']])], dim=2)
  # index_select
  m = In(torch.arange(12).reshape(3, 4))
  sec.add('index_select_dim0', 'index_select', self=m, dim=0, index=In(torch.tensor([2, 0, 2])))
  sec.add('index_select_dim1', 'index_select', self=m, dim=1, index=In(torch.tensor([3, 1])))
  sec.add('index_select_dim_neg1', 'index_select', self=m, dim=-1, index=In(torch.tensor([0, 0, 0, 3, 2])))
  sec.add('index_select_int32_index', 'index_select', self=m, dim=0, index=In(torch.tensor([1, 2], dtype=i32)))
  sec.add('index_select_empty_index', 'index_select', self=m, dim=1, index=In(torch.zeros(0, dtype=i64)))
  sec.add('index_select_1d', 'index_select', self=In(torch.tensor([5, 6, 7])), dim=0, index=In(torch.tensor([2, 2, 1, 0])))
  sec.add('index_select_3d_dim1', 'index_select', self=In(torch.arange(24).reshape(2, 3, 4)), dim=1,
          index=In(torch.tensor([2, 0])))
  sec.add('index_select_transposed_self', 'index_select', self=In(m.base, [['t']]), dim=0, index=In(torch.tensor([3, 0])))
  sec.add('index_select_float', 'index_select', self=In(torch.tensor([[0.5, -1.25], [NAN, INF]])), dim=0,
          index=In(torch.tensor([1, 0, 1])))
  sec.add('index_select_out_of_range', 'index_select', self=m, dim=0, index=In(torch.tensor([3])))
  sec.add('index_select_negative_index', 'index_select', self=m, dim=0, index=In(torch.tensor([-1])))
  sec.add('index_select_2d_index', 'index_select', self=m, dim=0, index=In(torch.tensor([[0, 1]])))
  sec.add('index_select_float_index', 'index_select', self=m, dim=0, index=In(torch.tensor([0.0])))
  sec.add('index_select_bad_dim', 'index_select', self=m, dim=2, index=In(torch.tensor([0])))
  # gather
  sec.add('gather_dim0', 'gather', self=m, dim=0, index=In(torch.tensor([[2, 0, 1, 1], [0, 0, 2, 1]])))
  sec.add('gather_dim1', 'gather', self=m, dim=1, index=In(torch.tensor([[3, 0], [1, 1], [0, 2]])))
  sec.add('gather_dim_neg1', 'gather', self=m, dim=-1, index=In(torch.tensor([[3], [2], [1]])))
  sec.add('gather_smaller_index', 'gather', self=m, dim=1, index=In(torch.tensor([[1, 2, 3]])))
  sec.add('gather_larger_along_dim', 'gather', self=m, dim=0, index=In(torch.tensor([[0], [1], [2], [0], [1]])))
  sec.add('gather_3d_dim1', 'gather', self=In(torch.arange(24).reshape(2, 3, 4)), dim=1,
          index=In(torch.tensor([[[2, 1, 0, 2]], [[0, 0, 1, 2]]])))
  sec.add('gather_3d_dim2', 'gather', self=In(torch.arange(24).reshape(2, 3, 4)), dim=2,
          index=In(torch.tensor([[[3], [2], [1]], [[0], [0], [3]]])))
  sec.add('gather_transposed_self', 'gather', self=In(m.base, [['t']]), dim=1, index=In(torch.tensor([[2], [0], [1], [1]])))
  sec.add('gather_empty_index', 'gather', self=m, dim=1, index=In(torch.zeros(3, 0, dtype=i64)))
  sec.add('gather_float', 'gather', self=In(torch.tensor([[0.5, -1.25], [NAN, INF]], dtype=f64)), dim=1,
          index=In(torch.tensor([[1, 1], [1, 0]])))
  sec.add('gather_out_of_range', 'gather', self=m, dim=1, index=In(torch.tensor([[4]])))
  sec.add('gather_negative_index', 'gather', self=m, dim=1, index=In(torch.tensor([[-1]])))
  sec.add('gather_int32_index', 'gather', self=m, dim=1, index=In(torch.tensor([[0]], dtype=i32)))
  sec.add('gather_rank_mismatch', 'gather', self=m, dim=1, index=In(torch.tensor([0, 1])))
  sec.add('gather_index_too_big_other_dim', 'gather', self=m, dim=1, index=In(torch.zeros(4, 1, dtype=i64)))


# ----------------------------------------------------------------------------- 3. views

def views(sec):
  def v(name, sizes, chain, base_start=0):
    return sec.add(name, 'chain', geometry=True, self=ar(sizes, start=base_start), chain=chain)

  s = [2, 3, 4]
  # view / reshape
  v('view_4x6', s, [['view', [4, 6]]])
  v('view_infer_first', s, [['view', [-1, 4]]])
  v('view_infer_middle', s, [['view', [2, -1, 2]]])
  v('view_flat', s, [['view', [24]]])
  v('view_add_ones', s, [['view', [1, 2, 1, 12, 1]]])
  v('view_to_0dim', [1, 1], [['view', []]])
  v('view_0dim_to_1x1', [], [['view', [1, 1]]])
  v('view_two_infer', s, [['view', [-1, -1]]])
  v('view_bad_numel', s, [['view', [5, 5]]])
  v('view_transposed_split', s, [['transpose', 0, 1], ['view', [3, 2, 2, 2]]])
  v('view_transposed_merge_incompatible', s, [['transpose', 0, 1], ['view', [3, 8]]])
  v('view_transposed_merge_compatible', [2, 3, 4, 5], [['transpose', 0, 1], ['view', [3, 2, 20]]])
  v('view_permuted_keep_inner', [2, 3, 4], [['permute', [1, 0, 2]], ['view', [3, 2, 2, 2]]])
  v('view_expanded', [3, 1], [['expand', [3, 4]], ['view', [3, 2, 2]]])
  v('view_expanded_merge', [3, 1], [['expand', [3, 4]], ['view', [12]]])
  v('view_sliced_rows', [4, 6], [['slice', 0, 1, 3, 1], ['view', [12]]])
  v('view_sliced_cols', [4, 6], [['slice', 1, 0, None, 2], ['view', [12]]])
  v('view_sliced_cols_split', [4, 6], [['slice', 1, 0, None, 2], ['view', [4, 3, 1]]])
  v('reshape_contiguous', s, [['reshape', [6, -1]]])
  v('reshape_transposed_copies', s, [['transpose', 0, 2], ['reshape', [24]]])
  v('reshape_transposed_views', s, [['transpose', 0, 1], ['reshape', [3, 2, 2, 2]]])
  v('reshape_expanded_copies', [3, 1], [['expand', [3, 4]], ['reshape', [12]]])
  v('reshape_sliced_copies', [4, 6], [['slice', 1, 1, 5, 1], ['reshape', [-1]]])
  v('reshape_bad', s, [['reshape', [7, -1]]])
  v('reshape_0dim', [], [['reshape', [-1]]])
  # transpose / t / permute
  v('transpose_0_2', s, [['transpose', 0, 2]])
  v('transpose_neg', s, [['transpose', -1, 0]])
  v('transpose_same', s, [['transpose', 1, 1]])
  v('transpose_twice', s, [['transpose', 0, 1], ['transpose', 1, 2]])
  v('transpose_bad_dim', s, [['transpose', 0, 3]])
  v('t_2d', [3, 5], [['t']])
  v('t_1d', [4], [['t']])
  v('t_0d', [], [['t']])
  v('t_3d', s, [['t']])
  v('permute_201', s, [['permute', [2, 0, 1]]])
  v('permute_neg', s, [['permute', [-1, 0, -2]]])
  v('permute_identity', s, [['permute', [0, 1, 2]]])
  v('permute_repeated', s, [['permute', [0, 0, 1]]])
  v('permute_short', s, [['permute', [1, 0]]])
  v('permute_4d', [2, 1, 3, 2], [['permute', [3, 1, 0, 2]]])
  # select / slice / narrow
  v('select_0_1', s, [['select', 0, 1]])
  v('select_1_neg1', s, [['select', 1, -1]])
  v('select_2_3', s, [['select', 2, 3]])
  v('select_neg_dim', s, [['select', -2, 0]])
  v('select_to_0dim', [5], [['select', 0, -2]])
  v('select_out_of_range', s, [['select', 1, 3]])
  v('select_neg_out_of_range', s, [['select', 1, -4]])
  v('select_0dim', [], [['select', 0, 0]])
  v('select_transposed', s, [['transpose', 0, 2], ['select', 1, 2]])
  v('slice_step2', s, [['slice', 2, 0, None, 2]])
  v('slice_step3_start1', [2, 3, 7], [['slice', 2, 1, None, 3]])
  v('slice_neg_start_end', s, [['slice', 2, -3, -1, 1]])
  v('slice_neg_start_step2', [10], [['slice', 0, -7, None, 2]])
  v('slice_clamped', s, [['slice', 2, -100, 100, 1]])
  v('slice_end_clamped_step', [10], [['slice', 0, 3, 50, 4]])
  v('slice_empty_equal', s, [['slice', 1, 1, 1, 1]])
  v('slice_empty_reversed', s, [['slice', 1, 2, 1, 1]])
  v('slice_start_past_end', [5], [['slice', 0, 7, None, 1]])
  v('slice_dim0_offset', s, [['slice', 0, 1, None, 1]])
  v('slice_neg_dim', s, [['slice', -1, 1, 3, 1]])
  v('slice_all_default', s, [['slice', 1, None, None, 1]])
  v('slice_step0', s, [['slice', 1, 0, None, 0]])
  v('slice_step_negative', s, [['slice', 1, None, None, -1]])
  v('slice_of_slice', [20], [['slice', 0, 2, None, 3], ['slice', 0, 1, -1, 2]])
  v('slice_transposed', s, [['transpose', 0, 2], ['slice', 0, 1, 4, 2]])
  v('narrow_basic', s, [['narrow', 1, 1, 2]])
  v('narrow_neg_dim', s, [['narrow', -1, 2, 2]])
  v('narrow_neg_start', s, [['narrow', -1, -3, 2]])
  v('narrow_zero_length', s, [['narrow', 2, 4, 0]])
  v('narrow_too_long', s, [['narrow', 2, 3, 2]])
  v('narrow_negative_length', s, [['narrow', 2, 0, -1]])
  # expand
  v('expand_col', [3, 1], [['expand', [3, 4]]])
  v('expand_new_dims', [3, 1], [['expand', [2, 3, 4]]])
  v('expand_minus1', [3, 1], [['expand', [-1, 5]]])
  v('expand_new_and_minus1', [3, 1], [['expand', [2, -1, -1]]])
  v('expand_1d', [3], [['expand', [2, 3]]])
  v('expand_0dim', [], [['expand', [2, 3]]])
  v('expand_same', s, [['expand', [2, 3, 4]]])
  v('expand_mismatch', [3, 1], [['expand', [4, 4]]])
  v('expand_fewer_dims', s, [['expand', [3, 4]]])
  v('expand_minus1_new_dim', [3], [['expand', [-1, 3]]])
  v('expand_to_zero', [3, 1], [['expand', [3, 0]]])
  v('expand_then_transpose', [3, 1], [['expand', [3, 4]], ['t']])
  v('expand_sliced', [4, 6], [['slice', 1, 2, 3, 1], ['expand', [2, 4, 5]]])
  # squeeze / unsqueeze
  v('squeeze_all', [1, 3, 1, 2], [['squeeze']])
  v('squeeze_dim0', [1, 3, 1, 2], [['squeeze', 0]])
  v('squeeze_dim_not_one', [1, 3, 1, 2], [['squeeze', 1]])
  v('squeeze_neg_dim', [1, 3, 1, 2], [['squeeze', -2]])
  v('squeeze_all_ones', [1, 1, 1], [['squeeze']])
  v('squeeze_0dim', [], [['squeeze']])
  v('squeeze_0dim_dim0', [], [['squeeze', 0]])
  v('squeeze_0dim_dim_neg1', [], [['squeeze', -1]])
  v('squeeze_bad_dim', [1, 3], [['squeeze', 2]])
  v('squeeze_sliced', [4, 6], [['slice', 0, 2, 3, 1], ['squeeze', 0]])
  v('squeeze_expanded', [3, 1], [['expand', [1, 3, 4]], ['squeeze']])
  v('unsqueeze_0', s, [['unsqueeze', 0]])
  v('unsqueeze_1', s, [['unsqueeze', 1]])
  v('unsqueeze_last', s, [['unsqueeze', 3]])
  v('unsqueeze_neg1', s, [['unsqueeze', -1]])
  v('unsqueeze_neg2', s, [['unsqueeze', -2]])
  v('unsqueeze_neg4', s, [['unsqueeze', -4]])
  v('unsqueeze_out_of_range', s, [['unsqueeze', 4]])
  v('unsqueeze_neg_out_of_range', s, [['unsqueeze', -5]])
  v('unsqueeze_0dim', [], [['unsqueeze', 0]])
  v('unsqueeze_0dim_neg1', [], [['unsqueeze', -1]])
  v('unsqueeze_transposed', s, [['transpose', 0, 2], ['unsqueeze', 1]])
  v('unsqueeze_transposed_last', s, [['transpose', 0, 2], ['unsqueeze', -1]])
  v('unsqueeze_sliced_step', [10], [['slice', 0, 1, None, 3], ['unsqueeze', 1]])
  v('unsqueeze_expanded', [3, 1], [['expand', [3, 4]], ['unsqueeze', 1]])
  # flatten
  v('flatten_all', s, [['flatten', 0, -1]])
  v('flatten_from1', s, [['flatten', 1, -1]])
  v('flatten_0_1', s, [['flatten', 0, 1]])
  v('flatten_neg', s, [['flatten', -2, -1]])
  v('flatten_same_dim', s, [['flatten', 1, 1]])
  v('flatten_0dim', [], [['flatten', 0, -1]])
  v('flatten_1d', [5], [['flatten', 0, 0]])
  v('flatten_transposed_copies', s, [['transpose', 0, 2], ['flatten', 0, -1]])
  v('flatten_transposed_partial_view', s, [['transpose', 0, 1], ['flatten', 2, 2]])
  v('flatten_permuted_inner_view', [2, 3, 4, 5], [['permute', [1, 0, 2, 3]], ['flatten', 2, 3]])
  v('flatten_start_gt_end', s, [['flatten', 2, 1]])
  v('flatten_bad_dim', s, [['flatten', 0, 3]])
  # contiguous and chains
  v('contiguous_already', s, [['contiguous']])
  v('contiguous_transposed', s, [['transpose', 1, 2], ['contiguous']])
  v('contiguous_sliced_rows', [4, 6], [['slice', 0, 1, 3, 1], ['contiguous']])
  v('chain_transpose_slice_select', [4, 5, 6], [['transpose', 0, 2], ['slice', 1, 1, None, 2], ['select', 2, -1]])
  v('chain_unsqueeze_expand_select', [3], [['unsqueeze', 0], ['expand', [4, 3]], ['select', 1, 2]])
  v('chain_permute_narrow_unsqueeze', [2, 3, 4], [['permute', [2, 0, 1]], ['narrow', 0, 1, 2], ['unsqueeze', -1]])
  v('chain_select_select', [2, 3, 4], [['select', 2, 1], ['select', 0, 1]])
  v('chain_slice_slice_view', [6, 8], [['slice', 0, 2, None, 1], ['slice', 1, 4, None, 1], ['view', [4, 2, 2]]])
  v('chain_offset_reshape_copies', [6, 8], [['slice', 1, 4, None, 1], ['reshape', [24]]])
  v('chain_size1_dims_contiguous', [1, 4, 1], [['transpose', 0, 2], ['unsqueeze', 0]])
  v('chain_size1_strided', [6, 8], [['slice', 0, 0, 1, 1], ['slice', 1, 0, None, 2], ['transpose', 0, 1]])
  v('chain_expand_squeeze_flatten', [1, 3], [['expand', [2, 3]], ['unsqueeze', 0], ['flatten', 0, 1]])
  v('chain_narrow_t_contiguous', [3, 4], [['narrow', 1, 1, 2], ['t'], ['contiguous']])
  v('chain_view_after_select', [2, 3, 4], [['select', 1, 1], ['view', [8]]])
  v('chain_view_after_select_dim0', [2, 3, 4], [['select', 0, 1], ['view', [4, 3]]])
  v('chain_empty_slice_then_view', [3, 4], [['slice', 0, 3, None, 1], ['view', [0, 2, 2]]])
  v('chain_empty_slice_then_transpose', [3, 4], [['slice', 1, 2, 2, 1], ['t']])


# ----------------------------------------------------------------------------- 4. factories

def mark_vectorized(case):
  """Flags float arange/linspace results that come from PyTorch's vectorized loop.

  cpu_serial_kernel_vec fills a contiguous output in chunks of 2 * Vectorized<T>::size()
  elements (32-byte vectors at the default kernel level: 8 float32, 4 float64), each vector as
  Vectorized<T>::arange(base, step) = base + j * step with base recomputed at the vector's first
  index (arange: base = T(start + step * idx) in double, element = T(base + j * step) in double;
  linspace: everything in T, base = start + step * idx before halfway, else
  end - step * (steps - idx - 1), element = base + j * step); the remaining
  steps % (2 * size()) elements use the scalar formula. Those bits therefore depend on PyTorch's vector width (they differ again at the
  AVX512 level), so the C++ side reports them separately.
  """
  e = case.get('expect')
  if case['op'] in ('arange', 'linspace') and e and e['dtype'] in ('float32', 'float64'):
    per_vec = 8 if e['dtype'] == 'float32' else 4
    if e['sizes'][0] >= 2 * per_vec:
      case['vectorized'] = True


def factories(sec):
  def arange(name, *args, dtype=None):
    kw = {'dtype': dtype} if dtype else {}
    conv = [S(a) for a in args]
    if len(args) == 1:
      sec.add(name, 'arange', end=conv[0], **kw)
    else:
      sec.add(name, 'arange', start=conv[0], end=conv[1], step=conv[2], **kw)

  arange('arange_10', 10)
  arange('arange_0', 0)
  arange('arange_2_5', 2.5)
  arange('arange_5_float64', 5, dtype=f64)
  arange('arange_5_int32', 5, dtype=i32)
  arange('arange_5_float32', 5, dtype=f32)
  arange('arange_1_10_2', 1, 10, 2)
  arange('arange_10_0_neg3', 10, 0, -3)
  arange('arange_0_1_0p1', 0, 1, 0.1)
  arange('arange_0_1_0p1_float64', 0, 1, 0.1, dtype=f64)
  arange('arange_neg3p5_2_0p7', -3.5, 2, 0.7)
  arange('arange_neg3p5_2_0p7_float64', -3.5, 2, 0.7, dtype=f64)
  arange('arange_1_4_0p5', 1, 4, 0.5)
  arange('arange_0_neg1_neg0p25', 0, -1, -0.25)
  arange('arange_neg1_1_0p3', -1.0, 1.0, 0.3)
  arange('arange_0_10_3_float32', 0, 10, 3, dtype=f32)
  arange('arange_0p5_int_end', 0.5, 4, 1)
  arange('arange_1e6_offset', 1000000.0, 1000001.0, 0.125)
  arange('arange_0_5_1p5_int64', 0, 5, 1.5, dtype=i64)
  arange('arange_0_5_1p5_int32', 0, 5, 1.5, dtype=i32)
  arange('arange_empty', 3, 3, 1)
  arange('arange_step0', 0, 5, 0)
  arange('arange_wrong_sign', 0, 5, -1)
  arange('arange_wrong_sign_float', 1.0, 0.0, 0.5)
  arange('arange_bool_dtype', 3, dtype=b8)
  # linspace
  ranges = [(0.0, 1.0), (-1.0, 1.0), (-3.5, 2.25), (1e-3, 1e3), (10.0, -10.0), (0.1, 0.7), (5.0, 5.0)]
  for dt in (f32, f64):
    for lo, hi in ranges:
      for steps in (1, 2, 5, 7, 100):
        name = f'linspace_{DNAME[dt]}_{lo!r}_{hi!r}_{steps}'.replace('-', 'm').replace('.', 'p')
        sec.add(name, 'linspace', start=S(lo), end=S(hi), steps=steps, dtype=dt)
    sec.add(f'linspace_{DNAME[dt]}_steps0', 'linspace', start=S(0.0), end=S(1.0), steps=0, dtype=dt)
    sec.add(f'linspace_{DNAME[dt]}_steps_negative', 'linspace', start=S(0.0), end=S(1.0), steps=-1, dtype=dt)
  # eye
  for n, m in [(1, None), (3, None), (4, 2), (2, 5), (0, None), (3, 0), (0, 4)]:
    for dt in DTYPES:
      sec.add(f'eye_{n}_{m}_{DNAME[dt]}', 'eye', n=n, m=m, dtype=dt)
  sec.add('eye_negative', 'eye', n=-1, m=None, dtype=f32)
  sec.add('eye_negative_m', 'eye', n=2, m=-1, dtype=f32)
  # full / zeros / ones
  for sname, val in [('int', S(3)), ('negint', S(-7)), ('float', S(2.5)), ('bool', S(True)), ('float_third', S(1 / 3))]:
    sec.add(f'full_{sname}_default', 'full', size=[2, 3], value=val)
    for dt in DTYPES:
      sec.add(f'full_{sname}_{DNAME[dt]}', 'full', size=[3], value=val, dtype=dt)
  sec.add('full_0dim', 'full', size=[], value=S(4))
  sec.add('full_empty', 'full', size=[2, 0], value=S(1.5))
  sec.add('full_negative_size', 'full', size=[2, -1], value=S(1.5))
  for op in ('zeros', 'ones'):
    sec.add(f'{op}_default', op, size=[2, 3])
    sec.add(f'{op}_0dim', op, size=[])
    sec.add(f'{op}_empty', op, size=[0, 3])
    for dt in DTYPES:
      sec.add(f'{op}_{DNAME[dt]}', op, size=[2, 2], dtype=dt)
    sec.add(f'{op}_negative_size', op, size=[-1])


# ----------------------------------------------------------------------------- 5. float bits

def special_values(dt):
  tiny = 1.401298464324817e-45 if dt == f32 else 5e-324
  big = 3.4028234663852886e38 if dt == f32 else 1.7976931348623157e308
  mn = 1.1754943508222875e-38 if dt == f32 else 2.2250738585072014e-308
  return [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 2.0, 0.5, tiny, -tiny, big, -big, mn, 3.0, 0.1]


def float_inputs(dt, seed, n=48):
  g = torch.Generator().manual_seed(seed)
  r = torch.randn(n, generator=g, dtype=f64)
  scale = torch.tensor([1.0, 1e-3, 1e3, 1e-30, 1e30, 7.0] * (n // 6), dtype=f64)
  vals = (r * scale).to(dt)
  if dt == f32:
    # a few float32 subnormals
    vals[5] = torch.tensor(3e-39, dtype=f32)
    vals[17] = torch.tensor(-1e-40, dtype=f32)
  else:
    vals[5] = 3e-310
    vals[17] = -1e-320
  return torch.cat([torch.tensor(special_values(dt), dtype=dt), vals])


def float_bits(sec):
  for dt in (f32, f64):
    n = DNAME[dt]
    x = float_inputs(dt, 1234)
    y = float_inputs(dt, 5678)
    # pair every special with every special once, through a permutation of y's specials
    k = len(special_values(dt))
    specials = torch.tensor(special_values(dt), dtype=dt)
    xs = specials.repeat_interleave(k)
    ys = specials.repeat(k)
    X, Y = In(torch.cat([x, xs])), In(torch.cat([y, ys]))
    for op in ('add', 'sub', 'mul', 'div'):
      sec.add(f'{op}_{n}', op, self=X, other=Y)
    row = In(x[:8].clone())
    col = In(y[:5].clone().reshape(5, 1))
    for op in ('add', 'sub', 'mul', 'div'):
      sec.add(f'{op}_{n}_broadcast_5x1_8', op, self=col, other=row)
      sec.add(f'{op}_{n}_strided', op, self=In(x.clone(), [['slice', 0, 0, 63, 3]]),
              other=In(y.clone(), [['slice', 0, 1, None, 3]]))
    for sname, s in [('0p1', S(0.1)), ('3', S(3)), ('neg2p75', S(-2.75)), ('1e30', S(1e30)), ('third', S(1 / 3))]:
      for op in ('add', 'sub', 'mul', 'div'):
        sec.add(f'{op}_{n}_scalar_{sname}', op, self=In(x.clone()), other=s)
      # a zero-dim tensor operand of the same dtype
      sec.add(f'mul_{n}_0dim_{sname}', 'mul', self=In(x.clone()), other=In(torch.tensor(s.v, dtype=dt)))
    for op in ('sqrt', 'rsqrt', 'neg', 'abs', 'sign'):
      sec.add(f'{op}_{n}', op, self=In(x.clone()))
      sec.add(f'{op}_{n}_transposed', op, self=In(x[:48].clone().reshape(6, 8), [['t']]))
    xr = x.clone()
    xr[xr == 0] = 0.0  # relu/clamp of -0.0 against a zero bound is not fixed by PyTorch
    sec.add(f'relu_{n}', 'relu', self=In(xr))
    for ename, e in [('2', S(2)), ('neg1', S(-1)), ('0p5', S(0.5)), ('3', S(3)), ('neg2', S(-2)), ('neg0p5', S(-0.5)),
                     ('0', S(0)), ('1', S(1)), ('2p0', S(2.0)), ('neg1p0', S(-1.0)), ('0p0', S(0.0)), ('1p0', S(1.0))]:
      sec.add(f'pow_{n}_{ename}', 'pow', self=In(x.clone()), exponent=e)
    for bname, lo, hi in [('both', S(-0.5), S(0.75)), ('min', S(-1e-3), None), ('max', None, S(2.5)),
                          ('int_bounds', S(-1), S(1)), ('min_gt_max', S(1.0), S(-1.0)), ('inf', S(-INF), S(INF)),
                          ('third', S(-1 / 3), S(1 / 3))]:
      sec.add(f'clamp_{n}_{bname}', 'clamp', self=In(xr.clone()), min=lo, max=hi)
  # float32 with float64: computed in float64
  x32, y64 = float_inputs(f32, 42), float_inputs(f64, 43)
  for op in ('add', 'sub', 'mul', 'div'):
    sec.add(f'{op}_float32_float64', op, self=In(x32), other=In(y64))
    sec.add(f'{op}_float32_float64_0dim', op, self=In(x32), other=In(torch.tensor(0.1, dtype=f64)))
    sec.add(f'{op}_int64_float64', op, self=In(torch.tensor([1, -7, 3, 123456789012, 0, 5])), other=In(y64[:6].clone()))


# ----------------------------------------------------------------------------- 6. matmul

def matmul(sec):
  def iv(shape, seed, dtype=f32):
    g = torch.Generator().manual_seed(seed)
    return In(torch.randint(-4, 5, shape, generator=g).to(dtype))

  shapes = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)),
            ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)),
            ((5, 2, 3), (1, 3, 4)), ((2, 5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (1, 5, 3, 4)), ((2, 5, 2, 3), (3, 4)),
            ((3,), (2, 5, 3, 4)), ((2, 5, 2, 3), (3,)), ((4, 1, 3), (2, 3, 1)), ((1, 3), (3, 1)), ((3, 1), (1, 3)),
            ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((2, 3), (3, 0)), ((0,), (0,)), ((3, 0, 2), (2, 4)),
            ((3,), (4,)), ((2, 3), (4,)), ((2, 3), (2, 3)), ((5, 2, 3), (4, 3, 4)), ((2, 3), (5, 4, 4)), ((), (3,)),
            ((3,), ()), ((2, 1, 2, 3), (3, 3, 4))]
  for i, (sa, sb) in enumerate(shapes):
    for dt in (f32, f64):
      name = f'matmul_{"x".join(map(str, sa)) or "0d"}_{"x".join(map(str, sb)) or "0d"}_{DNAME[dt]}'
      sec.add(name, 'matmul', self=iv(sa, 100 + i, dt), other=iv(sb, 200 + i, dt))
  sec.add('matmul_int64', 'matmul', self=iv((2, 3), 7, i64), other=iv((3, 2), 8, i64))
  sec.add('matmul_int64_batched', 'matmul', self=iv((2, 2, 3), 9, i64), other=iv((3,), 10, i64))
  sec.add('matmul_mixed_dtypes', 'matmul', self=iv((2, 3), 1, f32), other=iv((3, 2), 2, f64))
  sec.add('matmul_mixed_dtypes_1d', 'matmul', self=iv((3,), 1, f32), other=iv((3,), 2, f64))
  sec.add('matmul_transposed_inputs', 'matmul', self=In(iv((3, 2), 11).base, [['t']]), other=In(iv((4, 3), 12).base, [['t']]))
  sec.add('matmul_strided_batch', 'matmul', self=In(iv((4, 2, 3), 13).base, [['slice', 0, 0, None, 2]]),
          other=In(iv((2, 4, 3), 14).base, [['transpose', 1, 2]]))
  sec.add('matmul_expanded', 'matmul', self=In(iv((1, 2, 3), 15).base, [['expand', [3, 2, 3]]]), other=iv((3, 3, 2), 16))
  sec.add('matmul_larger_k', 'matmul', self=iv((7, 33), 17), other=iv((33, 9), 18))
  sec.add('mm_basic', 'mm', self=iv((2, 3), 19), other=iv((3, 4), 20))
  sec.add('mm_1d', 'mm', self=iv((3,), 21), other=iv((3, 4), 22))
  sec.add('mm_3d', 'mm', self=iv((2, 2, 3), 23), other=iv((3, 4), 24))
  sec.add('mm_mismatch', 'mm', self=iv((2, 3), 25), other=iv((2, 4), 26))
  sec.add('mm_transposed', 'mm', self=In(iv((3, 2), 27).base, [['t']]), other=iv((3, 2), 28))
  sec.add('bmm_basic', 'bmm', self=iv((3, 2, 4), 29), other=iv((3, 4, 2), 30))
  sec.add('bmm_batch_mismatch', 'bmm', self=iv((3, 2, 4), 31), other=iv((1, 4, 2), 32))
  sec.add('bmm_2d', 'bmm', self=iv((2, 4), 33), other=iv((4, 2), 34))
  sec.add('bmm_inner_mismatch', 'bmm', self=iv((3, 2, 4), 35), other=iv((3, 3, 2), 36))
  sec.add('bmm_float64', 'bmm', self=iv((2, 3, 1), 37, f64), other=iv((2, 1, 3), 38, f64))


# ----------------------------------------------------------------------------- 7. scatter

def scatter(sec):
  """The index family's accepted and refused shapes (test_scatter_gather_ops.py's cases and the
  edge cases of scatter_gather_dtype_check / scatter_shape_check / gather_shape_check)."""
  import warnings
  warnings.filterwarnings('ignore', message='scatter_reduce')
  E = torch.zeros(0, dtype=i64)
  reductions = ['sum', 'mean', 'amax', 'amin']
  for dt in DTYPES:
    n = DNAME[dt]
    z = In(torch.zeros(2, 2, dtype=dt))
    src = In(torch.ones(2, 2, dtype=dt))
    # an empty 1-D index returns self unchanged (or, for gather, shape (0,)), for every dtype
    sec.add(f'scatter_add_empty_index_{n}', 'scatter_add', self=z, dim=0, index=In(E), src=src)
    for r in reductions:
      sec.add(f'scatter_reduce_{r}_empty_index_{n}', 'scatter_reduce', self=z, dim=0, index=In(E), src=src, reduce=r)
    sec.add(f'gather_empty_index_{n}', 'gather', self=z, dim=0, index=In(E))
    sec.add(f'index_add_empty_index_{n}', 'index_add', self=z, dim=0, index=In(E),
            source=In(torch.zeros(0, 2, dtype=dt)))
    sec.add(f'index_select_empty_index_{n}', 'index_select', self=z, dim=0, index=In(E))
    # small real scatters with duplicates in every dtype (values fit every dtype; sums are exact)
    base = In(torch.tensor([[1, 0, 2], [3, 1, 0]], dtype=dt))
    idx = In(torch.tensor([[0, 2, 0, 0], [1, 1, 2, 1]]))
    vals = In(torch.tensor([[1, 1, 0, 1], [0, 1, 1, 1]], dtype=dt))
    sec.add(f'scatter_add_dups_{n}', 'scatter_add', self=base, dim=1, index=idx, src=vals)
    for r in reductions:
      for inc in (True, False):
        sec.add(f'scatter_reduce_{r}_dups_{n}_include_self_{inc}', 'scatter_reduce', self=base, dim=1, index=idx,
                src=vals, reduce=r, include_self=inc)
    sec.add(f'index_add_dups_{n}', 'index_add', self=base, dim=1, index=In(torch.tensor([2, 0, 2])),
            source=In(torch.tensor([[1, 0, 1], [1, 1, 0]], dtype=dt)))
  f = lambda *shape: In(torch.arange(int(np.prod(shape)) if shape else 1, dtype=f32).reshape(shape))
  L = lambda data: In(torch.tensor(data, dtype=i64))
  zi = lambda *shape: In(torch.zeros(*shape, dtype=i64))
  # empty indices of other dtypes and ranks, and what is still checked then
  for name, index in [('int32', In(torch.zeros(0, dtype=i32))), ('float', In(torch.zeros(0))),
                      ('rank2_0x3', zi(0, 3)), ('rank3', zi(0, 3, 1)), ('rank2_3x0', zi(3, 0))]:
    sec.add(f'scatter_add_empty_{name}_index', 'scatter_add', self=f(2, 2), dim=0, index=index, src=f(2, 2))
    sec.add(f'scatter_reduce_empty_{name}_index', 'scatter_reduce', self=f(2, 2), dim=0, index=index, src=f(2, 2),
            reduce='sum')
    sec.add(f'gather_empty_{name}_index', 'gather', self=f(2, 2), dim=1, index=index)
    sec.add(f'index_add_empty_{name}_index', 'index_add', self=f(2, 2), dim=0, index=index,
            source=In(torch.zeros(0, 2)))
  sec.add('scatter_add_empty_index_src_dtype_mismatch', 'scatter_add', self=f(2, 2), dim=0, index=In(E),
          src=In(torch.ones(2, 2, dtype=f64)))
  sec.add('scatter_add_empty_index_dim_out_of_range', 'scatter_add', self=f(2, 2), dim=2, index=In(E), src=f(2, 2))
  sec.add('gather_empty_index_dim_out_of_range', 'gather', self=f(2, 2), dim=-3, index=In(E))
  sec.add('index_add_empty_index_nonempty_source', 'index_add', self=f(3, 2), dim=0, index=In(E), source=f(1, 2))
  sec.add('index_add_empty_self_dim', 'index_add', self=In(torch.zeros(0, 2)), dim=0, index=In(E),
          source=In(torch.zeros(0, 2)))
  # 0-dim self, index and src (PyTorch treats a 0-dim tensor as one element along dim 0)
  sec.add('scatter_add_0d_all', 'scatter_add', self=In(torch.tensor(3.0)), dim=0, index=L(0), src=In(torch.tensor(2.0)))
  sec.add('scatter_add_0d_self_1d_index', 'scatter_add', self=In(torch.tensor(3.0)), dim=0, index=L([0, 0]),
          src=In(torch.tensor([2.0, 5.0])))
  sec.add('scatter_add_1d_self_0d_index', 'scatter_add', self=f(3), dim=0, index=L(1), src=In(torch.tensor(2.0)))
  sec.add('scatter_add_0d_self_index_1', 'scatter_add', self=In(torch.tensor(3.0)), dim=0, index=L([1]),
          src=In(torch.tensor([2.0])))
  sec.add('scatter_reduce_0d_amax', 'scatter_reduce', self=In(torch.tensor(3.0)), dim=0, index=L([0, 0]),
          src=In(torch.tensor([2.0, 5.0])), reduce='amax')
  sec.add('gather_0d_self_1d_index', 'gather', self=In(torch.tensor(3.0)), dim=0, index=L([0, 0]))
  sec.add('gather_0d_self_0d_index', 'gather', self=In(torch.tensor(3.0)), dim=0, index=L(0))
  sec.add('gather_0d_self_index_1', 'gather', self=In(torch.tensor(3.0)), dim=0, index=L([1]))
  sec.add('gather_1d_self_0d_index', 'gather', self=f(4), dim=0, index=L(2))
  sec.add('index_add_0d_index', 'index_add', self=f(3, 2), dim=0, index=L(1), source=f(1, 2))
  sec.add('index_add_0d_self', 'index_add', self=In(torch.tensor(1.0)), dim=0, index=L([0, 0]),
          source=In(torch.tensor([2.0, 3.0])))
  sec.add('index_add_0d_self_0d_source', 'index_add', self=In(torch.tensor(1.0)), dim=0, index=L(0),
          source=In(torch.tensor(2.0)))
  # shapes PyTorch accepts or refuses
  sec.add('scatter_add_index_larger_along_dim', 'scatter_add', self=f(3, 3), dim=0, index=zi(5, 2), src=f(5, 2))
  sec.add('scatter_add_index_smaller_than_src', 'scatter_add', self=f(3, 3), dim=1, index=L([[2, 0], [1, 1]]),
          src=f(3, 4))
  sec.add('scatter_add_index_larger_than_src', 'scatter_add', self=f(3, 3), dim=0, index=zi(2, 2), src=f(1, 2))
  sec.add('scatter_add_index_larger_than_self_other_dim', 'scatter_add', self=f(3, 3), dim=0, index=zi(2, 4),
          src=f(2, 4))
  sec.add('scatter_add_index_rank_mismatch', 'scatter_add', self=f(3, 3), dim=0, index=L([0, 1]), src=f(3, 3))
  sec.add('scatter_add_src_rank_mismatch', 'scatter_add', self=f(3, 3), dim=0, index=zi(1, 1), src=f(9))
  sec.add('scatter_add_int32_index', 'scatter_add', self=f(3, 3), dim=0, index=In(torch.zeros(1, 1, dtype=i32)),
          src=f(3, 3))
  sec.add('scatter_add_out_of_range', 'scatter_add', self=f(3, 3), dim=0, index=L([[3]]), src=f(3, 3))
  sec.add('scatter_add_negative_index', 'scatter_add', self=f(3, 3), dim=0, index=L([[-1]]), src=f(3, 3))
  sec.add('scatter_add_dim_neg1', 'scatter_add', self=f(2, 3), dim=-1, index=L([[2, 2], [0, 1]]), src=f(2, 2))
  sec.add('scatter_add_dim_out_of_range', 'scatter_add', self=f(2, 3), dim=2, index=L([[0]]), src=f(2, 2))
  sec.add('scatter_add_3d_dim1', 'scatter_add', self=f(2, 3, 2), dim=1, index=L([[[2, 0]], [[1, 1]]]),
          src=f(2, 2, 2))
  sec.add('scatter_add_mult_index_base_dim0', 'scatter_add', self=In(torch.zeros(30, 40)), dim=0, index=zi(30, 40),
          src=In(torch.ones(30, 40)))
  sec.add('scatter_add_mult_index_base_dim1', 'scatter_add', self=In(torch.zeros(30, 40)), dim=1, index=zi(30, 40),
          src=In(torch.ones(30, 40)))
  sec.add('scatter_add_broadcasted_index', 'scatter_add', self=In(torch.zeros(5, 3)), dim=0,
          index=In(torch.tensor([[4], [1], [4], [0]]), [['expand', [4, 3]]]), src=f(4, 3))
  sec.add('scatter_add_transposed_self', 'scatter_add', self=In(torch.zeros(3, 2), [['t']]), dim=1,
          index=L([[2, 0], [1, 1]]), src=f(2, 2))
  sec.add('scatter_reduce_bad_reduce', 'scatter_reduce', self=f(3), dim=0, index=L([0]), src=f(1), reduce='max')
  sec.add('scatter_reduce_index_rank_mismatch', 'scatter_reduce', self=f(3, 3), dim=0, index=L([0]), src=f(3, 3),
          reduce='amax')
  sec.add('scatter_reduce_out_of_range', 'scatter_reduce', self=f(3), dim=0, index=L([5]), src=f(1), reduce='mean')
  sec.add('scatter_reduce_dtype_mismatch', 'scatter_reduce', self=f(3), dim=0, index=L([0]),
          src=In(torch.ones(1, dtype=f64)), reduce='sum')
  sec.add('gather_index_rank_mismatch', 'gather', self=f(3, 3), dim=0, index=L([0, 1]))
  sec.add('gather_index_larger_other_dim', 'gather', self=f(3, 3), dim=0, index=zi(2, 4))
  sec.add('gather_index_larger_along_dim', 'gather', self=f(3, 3), dim=0, index=L([[2, 1, 0]] * 5))
  sec.add('gather_expanded_index', 'gather', self=f(3, 4), dim=1, index=In(torch.tensor([[3], [0], [1]]),
                                                                            [['expand', [3, 5]]]))
  sec.add('index_add_float_index', 'index_add', self=f(3, 2), dim=0, index=In(torch.zeros(1)), source=f(1, 2))
  sec.add('index_add_int32_index', 'index_add', self=f(3, 2), dim=0, index=In(torch.tensor([2, 2], dtype=i32)),
          source=f(2, 2))
  sec.add('index_add_2d_index', 'index_add', self=f(3, 2), dim=0, index=zi(1, 1), source=f(1, 2))
  # Left out: a source of lower rank than self (f(3, 2), dim 0, index [0, 1], source f(2)), which
  # 1.13 accepts and broadcasts source[k] over the slice; ditto asks for source of self's rank.
  sec.add('index_add_source_slice_mismatch', 'index_add', self=f(3, 2), dim=0, index=L([0]), source=f(1, 3))
  sec.add('index_add_out_of_range', 'index_add', self=f(3, 2), dim=0, index=L([3]), source=f(1, 2))
  sec.add('index_add_negative_index', 'index_add', self=f(3, 2), dim=0, index=L([-1]), source=f(1, 2))
  sec.add('index_add_alpha', 'index_add', self=f(3, 2), dim=1, index=L([1, 1]), source=f(3, 2), alpha=S(3))
  sec.add('index_add_dtype_mismatch', 'index_add', self=f(3, 2), dim=0, index=L([0]),
          source=In(torch.ones(1, 2, dtype=f64)))


def main():
  out = sys.argv[1] if len(sys.argv) > 1 else 'tests/data/pytorch-ops.json'
  torch.set_default_dtype(torch.float32)
  torch.set_flush_denormal(False)
  sections = {}
  for name, fn in [('promotion', promotion), ('integer', integer), ('views', views), ('factories', factories),
                   ('float_bits', float_bits), ('matmul', matmul), ('scatter', scatter)]:
    sec = Section(name)
    fn(sec)
    if name == 'factories':
      for c in sec.cases:
        mark_vectorized(c)
    sections[name] = sec.cases
  doc = {'torch_version': torch.__version__, 'generator': 'tools/gen_golden_ops.py', 'sections': sections}
  # One case per line: diffable, and independent of dict ordering (keys are sorted).
  with open(out, 'w') as f:
    f.write('{"torch_version": %s,\n "generator": %s,\n "sections": {\n' %
            (json.dumps(doc['torch_version']), json.dumps(doc['generator'])))
    for si, (name, cases) in enumerate(sections.items()):
      f.write('  %s: [\n' % json.dumps(name))
      for ci, c in enumerate(cases):
        f.write('   ' + json.dumps(c, sort_keys=True, allow_nan=False) + (',\n' if ci + 1 < len(cases) else '\n'))
      f.write('  ]' + (',\n' if si + 1 < len(sections) else '\n'))
    f.write(' }\n}\n')
  counts = {k: (len(v), sum('error' in c for c in v)) for k, v in sections.items()}
  print(out, ' '.join(f'{k}={n}({e} errors)' for k, (n, e) in counts.items()))


if __name__ == '__main__':
  main()
