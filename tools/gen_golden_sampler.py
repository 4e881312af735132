#!/usr/bin/python3
"""Generate known answers for ditto.utils.data.DistributedSampler (ditto::data::DistributedSampler)
from the installed PyTorch's torch.utils.data.DistributedSampler, for
python/tests/test_distributed.py.

Writes tests/data/pytorch-sampler.json (or the path given as the first argument).

Usage:  /usr/bin/python3 tools/gen_golden_sampler.py [out.json]   (needs Debian's python3-torch, 1.13)

The dataset is a plain range (only its len() enters); num_replicas and rank are always given, so
no process group is needed. randperm on the CPU does not depend on the kernel level, and PyTorch
runs with one thread, so the file does not depend on the machine.

Layout of the JSON
------------------
{"torch_version", "generator", "sections": {"distributed_sampler": [CASE, ...]}} (the schema of
tests/golden.h's golden_section), one case a line, with

CASE = {"size", "num_replicas", "rank", "shuffle", "seed", "epoch", "drop_last", "indices"}: the
sampler DistributedSampler(range(size), num_replicas, rank, shuffle, seed, drop_last) after
set_epoch(epoch); indices is list(iter(sampler)) (JSON ints), and len(sampler) == len(indices).

The cases: dataset sizes 0, 1, 2, 3, 7, 10, 17 and 100 (sizes below num_replicas included) for
1, 2, 3, 4 and 8 replicas, the first, a middle and the last rank; shuffled with seeds 0 and 1234
at epochs 0, 1 and 5 (and seed 2^32 + 7 at epoch 1 for sizes 10 and 17), and not shuffled with
seed 0 at epoch 0 and seed 1234 at epoch 5 (which must not matter); drop_last both ways. To keep
the file small, size 0 has three of these, and size 1000 runs 1, 3 and 8 replicas, the first and
last rank, shuffled with seed 1234 at epoch 0 and seed 0 at epoch 5, and not shuffled.
"""
import json
import os
import sys

import torch
from torch.utils.data import DistributedSampler

torch.set_num_threads(1)

SIZES = [0, 1, 2, 3, 7, 10, 17, 100, 1000]
REPLICAS = [1, 2, 3, 4, 8]
BIG = 1000


def ranks_of(size, n):
  if size >= BIG:
    return sorted({0, n - 1})
  return sorted({0, n // 2, n - 1})


def replicas_of(size):
  return [1, 3, 8] if size >= BIG else REPLICAS


def shuffles_of(size):
  """(shuffle, seed, epoch) for a dataset size."""
  if size == 0:
    return [(True, 0, 0), (True, 1234, 5), (False, 0, 0)]
  if size >= BIG:
    return [(True, 1234, 0), (True, 0, 5), (False, 0, 0)]
  out = [(True, s, e) for s in (0, 1234) for e in (0, 1, 5)]
  if size in (10, 17):
    out.append((True, 2**32 + 7, 1))
  return out + [(False, 0, 0), (False, 1234, 5)]


def case(size, n, rank, shuffle, seed, epoch, drop_last):
  s = DistributedSampler(range(size), num_replicas=n, rank=rank, shuffle=shuffle, seed=seed, drop_last=drop_last)
  s.set_epoch(epoch)
  indices = [int(i) for i in iter(s)]
  assert len(indices) == len(s), (size, n, rank, drop_last)
  return {'size': size, 'num_replicas': n, 'rank': rank, 'shuffle': shuffle, 'seed': seed, 'epoch': epoch,
          'drop_last': drop_last, 'indices': indices}


def main():
  here = os.path.dirname(os.path.abspath(__file__))
  path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'tests', 'data', 'pytorch-sampler.json')
  cases = []
  for size in SIZES:
    for n in replicas_of(size):
      for rank in ranks_of(size, n):
        for shuffle, seed, epoch in shuffles_of(size):
          for drop_last in (False, True):
            cases.append(case(size, n, rank, shuffle, seed, epoch, drop_last))
  head = {'torch_version': torch.__version__, 'generator': 'tools/gen_golden_sampler.py'}
  with open(path, 'w') as f:  # one case a line: small diffs when regenerated
    f.write(json.dumps(head, separators=(',', ':'))[:-1] + ',"sections":{"distributed_sampler":[\n' +
            ',\n'.join(json.dumps(c, separators=(',', ':')) for c in cases) + '\n]}}\n')
  with open(path) as f:
    assert json.load(f)['sections']['distributed_sampler'] == cases
  print('%s: %d cases (torch %s)' % (path, len(cases), torch.__version__))


if __name__ == '__main__':
  main()
