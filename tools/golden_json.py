"""The one schema of the known-answer files in tests/data/ (read by tests/golden.h):

  {"torch_version": "1.13.0a0", "generator": "tools/gen_*.py", "meta": {...how it was made...},
   "sections": {SECTION: [CASE, ...] or {...}, ...}}

and the one tensor encoding inside cases:

  {"dtype": "float32"|"float64"|"int64"|"int32"|"bool", "sizes": [...], "data": [...]}

data is row-major: floats as their raw IEEE-754 bits in hex ("0x3f800000"), integers as numbers,
bools as true/false. tools/gen_golden_ops.py, gen_golden_nn.py and gen_golden_sampler.py write the
same schema with their own line layout."""
import json

import numpy as np
import torch

_NAMES = {torch.float32: 'float32', torch.float64: 'float64', torch.int64: 'int64', torch.int32: 'int32',
          torch.bool: 'bool'}


def enc(t):
    """A tensor (or None) in the one encoding."""
    if t is None:
        return None
    t = t.detach().contiguous()
    d = {'dtype': _NAMES[t.dtype], 'sizes': list(t.shape)}
    flat = t.reshape(-1)
    if t.dtype == torch.float32:
        d['data'] = ['0x%08x' % w for w in flat.numpy().view(np.uint32).tolist()]
    elif t.dtype == torch.float64:
        d['data'] = ['0x%016x' % w for w in flat.numpy().view(np.uint64).tolist()]
    elif t.dtype == torch.bool:
        d['data'] = [bool(v) for v in flat.tolist()]
    else:
        d['data'] = [int(v) for v in flat.tolist()]
    return d


def document(generator, sections, meta=None, torch_version=None):
    """The file's object: every section must hold at least one case."""
    for name, cases in sections.items():
        if not cases:
            raise ValueError('section %r has no cases' % name)
    doc = {'torch_version': torch_version or torch.__version__, 'generator': generator}
    if meta:
        doc['meta'] = meta
    doc['sections'] = sections
    return doc


def write(path, doc, indent=None):
    """Writes doc (from document()) compactly, or indented when indent is given."""
    with open(path, 'w') as f:
        if indent is None:
            json.dump(doc, f, indent=None, separators=(',', ':'))
        else:
            json.dump(doc, f, indent=indent)
        f.write('\n')
