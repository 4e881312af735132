#!/usr/bin/python3
"""Replays ditto-fuzz's replayable calls in PyTorch and compares which calls each library accepts.

    build/tests/ditto-fuzz --emit calls.jsonl --calls 3000
    /usr/bin/python3 tools/fuzz_vs_pytorch.py calls.jsonl     (needs Debian's python3-torch, 1.13)

Each line of the input is one call (op, tensors with their values, dims) and ditto's outcome:
"ok" with the result's dtype and sizes, or "error". Prints the counts, then every call where the
two libraries disagree: ditto refuses what PyTorch accepts ("too eager"), ditto accepts what
PyTorch refuses ("too lax"), or both accept with another result dtype or shape. Exits 1 when
there is any disagreement not listed in KNOWN below (documented differences), else 0; exits 77
when PyTorch is not installed (CTest counts that as skipped). The calls run in a forked child:
a call on which PyTorch itself crashes is listed, not counted as a disagreement.
"""
import collections
import json
import os
import sys

try:
  import torch
except ImportError:
  print('fuzz_vs_pytorch.py: PyTorch is not installed (apt-get install python3-torch); skipped')
  sys.exit(77)

DT = {'bool': torch.bool, 'int32': torch.int32, 'int64': torch.int64, 'float32': torch.float32,
      'float64': torch.float64}
NAME = {v: k for k, v in DT.items()}



def reduced_size(c):
  sizes, d = c['x']['sizes'], c['dim']
  return sizes[d] if sizes and -len(sizes) <= d < len(sizes) else 1


# Differences that are known and kept, each with its reason: (op, kind, predicate on the call).
KNOWN = [
    # PyTorch refuses argmax/argmin on bool ("argmax_cpu" not implemented for 'Bool') except when
    # the reduced dim has size 1, where it skips its kernel; ditto refuses bool consistently.
    ('argmax', 'too eager (ditto refuses)', lambda c: c['x']['dtype'] == 'bool' and reduced_size(c) == 1),
    ('argmin', 'too eager (ditto refuses)', lambda c: c['x']['dtype'] == 'bool' and reduced_size(c) == 1),
    ('argmin', 'too eager (ditto refuses)', lambda c: c['x']['dtype'] == 'bool' and 0 in c['x']['sizes']),
    # PyTorch returns early on an empty input before checking its dtype (softmax of an empty
    # int64 tensor is an empty int64 tensor); ditto checks the dtype whatever the size.
    ('argmax', 'too eager (ditto refuses)', lambda c: c['x']['dtype'] == 'bool' and 0 in c['x']['sizes']),
    ('softmax', 'too eager (ditto refuses)', lambda c: 0 in c['x']['sizes']),
    # ditto multiplies bool matrices (each element an "or" of "and"s, its integer GEMM path);
    # PyTorch 1.13 has no bool kernel for dot, mm or bmm.
    ('mm', 'too lax (ditto accepts)', lambda c: 'bool' in (c['x']['dtype'], c['y']['dtype'])),
    ('bmm', 'too lax (ditto accepts)', lambda c: 'bool' in (c['x']['dtype'], c['y']['dtype'])),
    ('matmul', 'too lax (ditto accepts)', lambda c: 'bool' in (c['x']['dtype'], c['y']['dtype'])),
    ('log_softmax', 'too eager (ditto refuses)', lambda c: 0 in c['x']['sizes']),
    # The same early return for an empty product: PyTorch 1.13 multiplies an empty int32 matrix by
    # a float64 one (an empty int32 result) and refuses the same dtypes when nothing is empty.
    ('mm', 'too eager (ditto refuses)', lambda c: 0 in c['x']['sizes'] or 0 in c['y']['sizes']),
    ('bmm', 'too eager (ditto refuses)', lambda c: 0 in c['x']['sizes'] or 0 in c['y']['sizes']),
    ('matmul', 'too eager (ditto refuses)', lambda c: 0 in c['x']['sizes'] or 0 in c['y']['sizes']),
    # PyTorch's CPU index_add_ adds each source slice into self's slice with broadcasting and does
    # not check what its docs require (source's other dims equal to self's): a 1-D source into a
    # (4, 2) self along dim 0 fills whole rows. ditto keeps the documented shapes.
    ('index_add', 'too eager (ditto refuses)', lambda c: 0 < len(c['z']['sizes']) < len(c['x']['sizes'])),
]


def known(c, kind):
  return any(op == c['op'] and k == kind and pred(c) for op, k, pred in KNOWN)


def tensor(j):
  return torch.tensor(j['data'], dtype=DT[j['dtype']]).reshape(j['sizes'])


def run(c):
  x = tensor(c['x'])
  y = tensor(c['y']) if 'y' in c else None
  z = tensor(c['z']) if 'z' in c else None
  op, d, d2, keep = c['op'], c['dim'], c['dim2'], c['keepdim']
  if op in ('mm', 'bmm', 'matmul'):
    return getattr(torch, op)(x, y)
  if op == 'where':
    return torch.where(z, x, y)
  if op == 'masked_fill':
    return x.masked_fill(z, d2)
  if op == 'clamp':
    return torch.clamp(x, d, d2)
  if op == 'index_add':
    return torch.index_add(x, d, y, z)
  if op == 'scatter_add':
    return torch.scatter_add(x, d, y, z)
  if op == 'scatter_reduce':
    return torch.scatter_reduce(x, d, y, z, 'amax')
  if op == 'embedding':
    return torch.nn.functional.embedding(y, x)
  if op == 'max':
    return torch.max(x, d, keepdim=keep).values
  if op == 'argmin':
    return torch.argmin(x, d, keepdim=keep)
  if op == 'std':
    return torch.std(x, [d], unbiased=True, keepdim=keep)
  if op in ('neg', 'abs', 'exp', 'log', 'sqrt', 'rsqrt', 'sigmoid', 'tanh', 'relu', 'sign'):
    return getattr(torch, op)(x)
  if op in ('add', 'sub', 'mul', 'div', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'pow'):
    return getattr(torch, op)(x, y)
  if op in ('sum', 'mean', 'amax', 'amin'):
    return getattr(torch, op)(x, [d], keepdim=keep)
  if op in ('prod', 'argmax'):
    return getattr(torch, op)(x, d, keepdim=keep)
  if op in ('softmax', 'log_softmax'):
    return getattr(torch, op)(x, d)
  if op == 'var':
    return torch.var(x, [d], unbiased=True, keepdim=keep)
  if op == 'transpose':
    return x.transpose(d, d2)
  if op == 'select':
    return x.select(d, d2)
  if op == 'unsqueeze':
    return x.unsqueeze(d)
  if op == 'squeeze':
    return x.squeeze(d)
  if op == 'flatten':
    return x.flatten(d, d2)
  if op == 'gather':
    return torch.gather(x, d, y)
  if op == 'index_select':
    return torch.index_select(x, d, y)
  if op == 'cat':
    return torch.cat([x, y], d)
  raise ValueError(op)


def outcome(c):
  try:
    r = run(c)
    return {'ok': True, 'dtype': NAME[r.dtype], 'sizes': list(r.shape)}
  except (RuntimeError, IndexError, ValueError, TypeError) as e:
    return {'ok': False, 'error': str(e).split('\n')[0][:160]}


def replay_all(calls):
  """Runs the calls in a forked child (PyTorch 1.13 crashes on some bad calls, and a crash must
  not end the replay), one line of JSON back per call; when the child dies, the call it was on
  is marked None and a new child goes on from the next. (A fork per call cost 30 ms each.)"""
  results, i = [None] * len(calls), 0
  while i < len(calls):
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
      os.close(rfd)
      with os.fdopen(wfd, 'w') as w:
        for c in calls[i:]:
          w.write(json.dumps(outcome(c)) + '\n')
          w.flush()
      os._exit(0)
    os.close(wfd)
    with os.fdopen(rfd) as r:
      for line in r:
        results[i] = json.loads(line)
        i += 1
    os.waitpid(pid, 0)
    if i < len(calls):  # the child died on call i
      i += 1
  return results


def main(path):
  counts = collections.Counter()
  kept = 0
  unknown, crashed = [], []
  calls = [json.loads(line) for line in open(path)]
  for c, r in zip(calls, replay_all(calls)):
    desc = f"{c['op']} x={c['x']['dtype']}{c['x']['sizes']}" + (
        f" y={c['y']['dtype']}{c['y']['sizes']}" if 'y' in c else '') + f" dim={c['dim']} dim2={c['dim2']}"
    if r is None:  # PyTorch's bug, not a disagreement: listed, not failed
      counts['PyTorch crashed'] += 1
      crashed.append(f"PyTorch crashed: {desc} (ditto: {c['ditto']} {c.get('error', '')})")
      continue
    torch_ok, torch_err = r['ok'], r.get('error', '')
    ditto_ok = c['ditto'] == 'ok'
    if ditto_ok and torch_ok:
      if r['dtype'] != c['dtype'] or r['sizes'] != c['sizes']:
        kind = 'result differs'
        detail = f"ditto {c['dtype']}{c['sizes']}, PyTorch {r['dtype']}{r['sizes']}"
      else:
        counts['both accept, same dtype and shape'] += 1
        continue
    elif not ditto_ok and not torch_ok:
      counts['both refuse'] += 1
      continue
    elif torch_ok:
      kind, detail = 'too eager (ditto refuses)', c.get('error', '')
    else:
      kind, detail = 'too lax (ditto accepts)', torch_err
    counts[kind] += 1
    if not known(c, kind):
      unknown.append(f'{kind}: {desc}: {detail}')
    else:
      kept += 1
  total = sum(counts.values())
  print(f'fuzz_vs_pytorch.py: {total} calls replayed in PyTorch {torch.__version__}')
  for k, v in sorted(counts.items()):
    print(f'  {v:6d}  {k}')
  print(f'  of the disagreements, {kept} are known and kept (KNOWN in tools/fuzz_vs_pytorch.py), '
        f'{len(unknown)} are not')
  for u in crashed[:10]:
    print('  ' + u)
  for u in unknown[:60]:
    print('  ' + u)
  if len(unknown) > 60:
    print(f'  ... and {len(unknown) - 60} more')
  return 1 if unknown else 0


if __name__ == '__main__':
  sys.exit(main(sys.argv[1]))
