#!/usr/bin/python3
"""Generate known answers for ditto's nn modules, losses, optimizers and LR schedulers from the
installed PyTorch (CPU), for tests/test_nn_layers.cpp, tests/test_nn_loss.cpp and
tests/test_optim.cpp.

Writes tests/data/pytorch-nn.json (or the path given as the first argument).

Usage:  /usr/bin/python3 tools/gen_golden_nn.py [out.json]   (needs Debian's python3-torch, 1.13)

PyTorch runs with its AVX2 kernels (ATEN_CPU_CAPABILITY=avx2, forced by re-executing) and one
thread, so the file does not depend on the machine or the caller's environment. The AVX2
kernels fuse a*b+c into one fma in add(alpha), lerp and addcmul; ditto makes the same fmas
explicit, so optimizer steps compare bit for bit.

Layout of the JSON
------------------
{"torch_version": ..., "generator": ..., "sections": {SECTION: [CASE, ...]}}

TENSOR = {"dtype": "float32"|"float64"|"int64"|"bool", "sizes": [...], "data": [...]}, data
row-major: floats as IEEE bit patterns in hex ("0x3f800000" float32, 16 hex digits float64),
integers as JSON ints, bools as true/false. A float Python number is written as the hex bits of
the double ("0x3fb999999999999a").

Sections and their cases (every case has a unique "name"):
  gelu        approximate, x, grad_out -> out, grad_x
  dropout     seed, p, x, grad_out, module (bool: nn.Dropout or F.dropout) -> outs (two calls
              in a row after the seed), grad_x (of the first call)
  embedding_init  seed, num, dim, padding_idx|null -> weight (nn.Embedding after manual_seed)
  embedding   weight, indices, padding_idx|null, grad_out -> out, grad_weight
  layer_norm  x, normalized_shape, eps, weight|null, bias|null, grad_out -> out, grad_x,
              grad_weight, grad_bias
  batch_norm  module ("BatchNorm1d"|"BatchNorm2d"), num_features, eps, momentum|null, affine,
              track_running_stats, training, x, weight, bias, running_mean, running_var (state
              before), grad_out -> out, grad_x, grad_weight, grad_bias, running_mean_after,
              running_var_after, num_batches_tracked_after
  loss        loss ("l1"|"nll"|"cross_entropy"|"bce_with_logits"|"cross_entropy_probs"|"smooth_l1"|
              "huber"|"bce"|"kl_div"|"margin_ranking"|"cosine_embedding"), reduction, input, target,
              input2 (the second input of margin_ranking and cosine_embedding, whose grad_input is
              input's), number (beta, delta or margin), log_target (kl_div),
              weight|null, pos_weight|null, ignore_index, label_smoothing, grad_out -> out, grad_input
  optim_steps optimizer ("sgd"|"adam"|"adamw"), options, param, grads (one per step) ->
              params (after each step, PyTorch 1.13's torch.optim), and for Adam/AdamW
              params_v2 (after each step, PyTorch 2.x's _single_tensor_adam run on the same
              kernels: exp_avg.lerp_ instead of mul_/add_)
  training    model ("linear"|"mlp"), loss ("mse"|"cross_entropy"), x, y, init (the model's
              parameters after manual_seed(seed), in named_parameters order), seed, optimizer,
              options, steps -> losses (float32 bits, one per step, before the update), and
              losses_v2 for Adam/AdamW (2.x formula as above)
  scheduler   scheduler ("step"|"cosine"), base_lr, args, steps -> lrs (float64 bits: the lr
              after construction, then after each scheduler.step())
  group_norm  kind ("group"|"instance"), groups, x, weight|null, bias|null, grad_out -> out,
              grad_x, grad_weight, grad_bias; instance: running_mean/var after (from 0.25, 1.5,
              momentum 0.2)
  channel_dropout  module ("Dropout1d"|"Dropout2d"), p, seed, x -> out (after manual_seed(seed))
  scheduler_groups  scheduler ("linear"|"lambda"|"onecycle"|"sequential"), optimizer
              ("sgd" with momentum 0.9 |"adam"|"adamw"), base_lrs (one per group), args
              (floats as hex bits; lambda's "fn" names functions of LAMBDAS), steps -> lrs and
              momenta (per step, per group: the group's lr and SGD momentum or Adam beta1)
"""
import json
import math
import os
import struct
import warnings
import sys

if os.environ.get('ATEN_CPU_CAPABILITY') != 'avx2':
  os.environ['ATEN_CPU_CAPABILITY'] = 'avx2'
  os.execv(sys.executable, [sys.executable] + sys.argv)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)


def hexf(x, dtype):
  if dtype == torch.float32:
    return '0x%08x' % struct.unpack('<I', struct.pack('<f', x))[0]
  return '0x%016x' % struct.unpack('<Q', struct.pack('<d', x))[0]


def hexd(x):
  return hexf(float(x), torch.float64)


def enc(t):
  if t is None:
    return None
  t = t.detach().contiguous()
  names = {torch.float32: 'float32', torch.float64: 'float64', torch.int64: 'int64', torch.bool: 'bool'}
  d = {'dtype': names[t.dtype], 'sizes': list(t.shape)}
  flat = t.reshape(-1).tolist()
  if t.dtype in (torch.float32, torch.float64):
    d['data'] = [hexf(v, t.dtype) for v in flat]
  else:
    d['data'] = flat
  return d


def gen(seed):
  g = torch.Generator()
  g.manual_seed(seed)
  return g


def randn(shape, seed, dtype=torch.float32, scale=1.0):
  return (torch.randn(shape, generator=gen(seed), dtype=torch.float64) * scale).to(dtype)


def grad_of(t):
  return None if t is None or t.grad is None else t.grad


# ---------------------------------------------------------------------------------------------
def gelu_cases():
  out = []
  for dtype in (torch.float32, torch.float64):
    x = randn((6, 9), 11, dtype, 2.5)
    x.view(-1)[:8] = torch.tensor([0.0, -0.0, 1e-3, -1e-3, 8.0, -8.0, 30.0, -30.0], dtype=dtype)
    go = randn((6, 9), 12, dtype)
    for approx in ('none', 'tanh'):
      xi = x.clone().requires_grad_()
      y = F.gelu(xi, approximate=approx)
      y.backward(go)
      out.append({'name': 'gelu_%s_%s' % (approx, str(dtype)[6:]), 'approximate': approx, 'x': enc(x),
                  'grad_out': enc(go), 'out': enc(y), 'grad_x': enc(xi.grad)})
  return out


def dropout_cases():
  out = []
  k = 0
  for dtype in (torch.float32, torch.float64):
    for p in (0.1, 0.5, 0.8, 0.3333):
      for module in (False, True):
        k += 1
        seed = 100 + k
        x = randn((7, 13), 200 + k, dtype)
        go = randn((7, 13), 300 + k, dtype)
        xi = x.clone().requires_grad_()
        torch.manual_seed(seed)
        f = nn.Dropout(p) if module else (lambda v: F.dropout(v, p, True))
        y1 = f(xi)
        y2 = f(x)
        y1.backward(go)
        out.append({'name': 'dropout_%d' % k, 'seed': seed, 'p': hexd(p), 'module': module, 'x': enc(x),
                    'grad_out': enc(go), 'outs': [enc(y1), enc(y2)], 'grad_x': enc(xi.grad)})
  return out


def embedding_init_cases():
  out = []
  for seed, num, dim, pad in ((0, 10, 5, None), (1, 20, 16, 3), (2, 3, 4, -1), (3, 100, 7, None), (4, 1, 1, None)):
    torch.manual_seed(seed)
    m = nn.Embedding(num, dim, padding_idx=pad)
    out.append({'name': 'embedding_init_%d' % seed, 'seed': seed, 'num': num, 'dim': dim, 'padding_idx': pad,
                'weight': enc(m.weight)})
  return out


def embedding_cases():
  out = []
  for k, (shape, pad) in enumerate((((3, 4), None), ((3, 4), 2), ((12,), -1), ((2, 2, 3), 0))):
    w = randn((6, 5), 400 + k)
    idx = torch.randint(0, 6, shape, generator=gen(500 + k))
    idx.view(-1)[0] = idx.view(-1)[1]  # a repeat, so rows accumulate
    if pad is not None:
      idx.view(-1)[2] = pad % 6
    wi = w.clone().requires_grad_()
    y = F.embedding(idx, wi, padding_idx=(pad % 6) if pad is not None else None)
    go = randn(y.shape, 600 + k)
    y.backward(go)
    out.append({'name': 'embedding_%d' % k, 'weight': enc(w), 'indices': enc(idx), 'padding_idx': pad,
                'grad_out': enc(go), 'out': enc(y), 'grad_weight': enc(wi.grad)})
  return out


def layer_norm_cases():
  out = []
  cfgs = [((4, 6), (6,), True, torch.float32), ((2, 3, 8), (3, 8), True, torch.float32),
          ((5, 10), (10,), False, torch.float32), ((3, 7), (7,), True, torch.float64),
          ((2, 40), (40,), True, torch.float32)]
  for k, (shape, ns, affine, dtype) in enumerate(cfgs):
    x = randn(shape, 700 + k, dtype, 2.0) + 0.5
    w = randn(ns, 710 + k, dtype) if affine else None
    b = randn(ns, 720 + k, dtype) if affine else None
    go = randn(shape, 730 + k, dtype)
    xi = x.clone().requires_grad_()
    wi = w.clone().requires_grad_() if affine else None
    bi = b.clone().requires_grad_() if affine else None
    y = F.layer_norm(xi, ns, wi, bi, 1e-5)
    y.backward(go)
    out.append({'name': 'layer_norm_%d' % k, 'x': enc(x), 'normalized_shape': list(ns), 'eps': hexd(1e-5),
                'weight': enc(w), 'bias': enc(b), 'grad_out': enc(go), 'out': enc(y), 'grad_x': enc(xi.grad),
                'grad_weight': enc(grad_of(wi)), 'grad_bias': enc(grad_of(bi))})
  return out


def group_norm_cases():
  """GroupNorm and InstanceNorm (functional; instance_norm with and without running stats)."""
  out = []
  cfgs = [('group', (3, 6, 4, 5), 2, True, torch.float32), ('group', (2, 8, 7), 8, False, torch.float32),
          ('group', (4, 6, 3, 3), 3, True, torch.float64), ('instance', (3, 4, 5, 6), None, True, torch.float32),
          ('instance', (2, 5, 9), None, False, torch.float32)]
  for k, (kind, shape, groups, affine, dtype) in enumerate(cfgs):
    C = shape[1]
    x = randn(shape, 760 + k, dtype, 2.0) + 0.5
    w = randn((C,), 770 + k, dtype) if affine else None
    b = randn((C,), 780 + k, dtype) if affine else None
    go = randn(shape, 790 + k, dtype)
    xi = x.clone().requires_grad_()
    wi = w.clone().requires_grad_() if affine else None
    bi = b.clone().requires_grad_() if affine else None
    rm = rv = None
    if kind == 'group':
      y = F.group_norm(xi, groups, wi, bi, 1e-5)
    else:
      rm, rv = torch.zeros(C, dtype=dtype) + 0.25, torch.ones(C, dtype=dtype) * 1.5
      y = F.instance_norm(xi, rm, rv, wi, bi, True, 0.2, 1e-5)
    y.backward(go)
    out.append({'name': '%s_norm_%d' % (kind, k), 'kind': kind, 'groups': groups, 'x': enc(x), 'weight': enc(w),
                'bias': enc(b), 'grad_out': enc(go), 'out': enc(y), 'grad_x': enc(xi.grad),
                'grad_weight': enc(grad_of(wi)), 'grad_bias': enc(grad_of(bi)), 'running_mean': enc(rm),
                'running_var': enc(rv)})
  return out


def channel_dropout_cases():
  """nn.Dropout1d / Dropout2d after manual_seed: PyTorch's bits (one draw per sample and channel)."""
  out = []
  for k, (kind, shape, p) in enumerate((('Dropout2d', (4, 8, 3, 5), 0.5), ('Dropout2d', (2, 6, 7), 0.3),
                                        ('Dropout1d', (3, 9, 11), 0.25), ('Dropout1d', (9, 11), 0.6))):
    x = randn(shape, 900 + k, torch.float32)
    seed = 950 + k
    torch.manual_seed(seed)
    y = getattr(nn, kind)(p)(x)
    out.append({'name': 'channel_dropout_%d' % k, 'module': kind, 'p': hexd(p), 'seed': seed, 'x': enc(x),
                'out': enc(y)})
  return out


def batch_norm_cases():
  out = []
  cfgs = [('BatchNorm1d', (8, 3), 0.1, True, True, True), ('BatchNorm1d', (4, 3, 5), 0.1, True, True, True),
          ('BatchNorm2d', (4, 3, 5, 6), 0.1, True, True, True), ('BatchNorm2d', (2, 3, 4, 4), None, True, True, True),
          ('BatchNorm1d', (6, 4), 0.3, False, True, True), ('BatchNorm1d', (6, 4), 0.1, True, False, True),
          ('BatchNorm1d', (5, 3, 2), 0.1, True, True, False), ('BatchNorm2d', (2, 3, 3, 3), 0.1, True, True, False)]
  for k, (kind, shape, momentum, affine, track, training) in enumerate(cfgs):
    C = shape[1]
    x = randn(shape, 800 + k, torch.float32, 1.5) + 0.7
    cls = nn.BatchNorm1d if kind == 'BatchNorm1d' else nn.BatchNorm2d
    m = cls(C, eps=1e-5, momentum=momentum, affine=affine, track_running_stats=track)
    with torch.no_grad():
      if affine:
        m.weight.copy_(randn((C,), 810 + k))
        m.bias.copy_(randn((C,), 820 + k))
      if track:
        m.running_mean.copy_(randn((C,), 830 + k))
        m.running_var.copy_(randn((C,), 840 + k).abs() + 0.5)
    m.train(training)
    case = {'name': 'batch_norm_%d' % k, 'module': kind, 'num_features': C, 'eps': hexd(1e-5),
            'momentum': None if momentum is None else hexd(momentum), 'affine': affine,
            'track_running_stats': track, 'training': training, 'x': enc(x),
            'weight': enc(m.weight) if affine else None, 'bias': enc(m.bias) if affine else None,
            'running_mean': enc(m.running_mean) if track else None,
            'running_var': enc(m.running_var) if track else None}
    xi = x.clone().requires_grad_()
    y = m(xi)
    go = randn(shape, 850 + k)
    y.backward(go)
    case.update({'grad_out': enc(go), 'out': enc(y), 'grad_x': enc(xi.grad),
                 'grad_weight': enc(m.weight.grad) if affine else None,
                 'grad_bias': enc(m.bias.grad) if affine else None,
                 'running_mean_after': enc(m.running_mean) if track else None,
                 'running_var_after': enc(m.running_var) if track else None,
                 'num_batches_tracked_after': int(m.num_batches_tracked) if track else None})
    out.append(case)
  return out


def loss_cases():
  out = []
  k = 0

  def add(loss, reduction, inp, target, fn, weight=None, pos_weight=None, ignore_index=-100, label_smoothing=0.0,
          input2=None, number=0.0, log_target=False):
    nonlocal k
    k += 1
    xi = inp.clone().requires_grad_()
    y = fn(xi)
    go = randn(y.shape, 900 + k, inp.dtype)
    y.backward(go)
    out.append({'name': '%s_%s_%d' % (loss, reduction, k), 'loss': loss, 'reduction': reduction, 'input': enc(inp),
                'target': enc(target), 'weight': enc(weight), 'pos_weight': enc(pos_weight),
                'ignore_index': ignore_index, 'label_smoothing': hexd(label_smoothing), 'grad_out': enc(go),
                'input2': enc(input2), 'number': hexd(number), 'log_target': log_target,
                'out': enc(y), 'grad_input': enc(xi.grad)})

  for red in ('none', 'mean', 'sum'):
    a, b = randn((4, 5), 1000), randn((4, 5), 1001)
    add('l1', red, a, b, lambda v: F.l1_loss(v, b, reduction=red))
    a64, b64 = randn((3, 7), 1002, torch.float64), randn((3, 7), 1003, torch.float64)
    add('l1', red, a64, b64, lambda v: F.l1_loss(v, b64, reduction=red))

  N, C = 9, 5
  logits = randn((N, C), 1010, scale=2.0)
  target = torch.randint(0, C, (N,), generator=gen(1011))
  target_ign = target.clone()
  target_ign[[1, 4]] = -100
  target_ign1 = target.clone()
  target_ign1[[0, 2]] = 1  # ignore_index 1 also ignores genuine class 1 targets
  weight = randn((C,), 1012).abs() + 0.2
  logits4 = randn((2, C, 3, 4), 1013, scale=2.0)
  target4 = torch.randint(0, C, (2, 3, 4), generator=gen(1014))
  target4[0, 1, 2] = -100
  logits1 = randn((C,), 1015)
  target1 = torch.tensor(3)
  logits64 = randn((N, C), 1016, torch.float64)
  for red in ('none', 'mean', 'sum'):
    logp = logits.log_softmax(1)
    add('nll', red, logp, target, lambda v: F.nll_loss(v, target, reduction=red))
    add('nll', red, logp, target_ign, lambda v: F.nll_loss(v, target_ign, weight=weight, reduction=red), weight=weight)
    add('nll', red, logits4.log_softmax(1), target4, lambda v: F.nll_loss(v, target4, reduction=red))
    add('cross_entropy', red, logits, target, lambda v: F.cross_entropy(v, target, reduction=red))
    add('cross_entropy', red, logits, target_ign, lambda v: F.cross_entropy(v, target_ign, weight=weight, reduction=red),
        weight=weight)
    add('cross_entropy', red, logits, target_ign1, lambda v: F.cross_entropy(v, target_ign1, ignore_index=1, reduction=red),
        ignore_index=1)
    add('cross_entropy', red, logits4, target4, lambda v: F.cross_entropy(v, target4, reduction=red))
    add('cross_entropy', red, logits1, target1, lambda v: F.cross_entropy(v, target1, reduction=red))
    add('cross_entropy', red, logits64, target, lambda v: F.cross_entropy(v, target, reduction=red))
    add('cross_entropy', red, logits, target_ign,
        lambda v: F.cross_entropy(v, target_ign, reduction=red, label_smoothing=0.1), label_smoothing=0.1)
    add('cross_entropy', red, logits, target_ign,
        lambda v: F.cross_entropy(v, target_ign, weight=weight, reduction=red, label_smoothing=0.25),
        weight=weight, label_smoothing=0.25)

  z = randn((6, 3), 1020, scale=3.0)
  z.view(-1)[:4] = torch.tensor([40.0, -40.0, 0.0, 1e-4])
  t = torch.rand((6, 3), generator=gen(1021))
  t.view(-1)[:2] = torch.tensor([1.0, 0.0])
  bw = randn((3,), 1022).abs()
  pw = randn((3,), 1023).abs() + 0.5
  for red in ('none', 'mean', 'sum'):
    add('bce_with_logits', red, z, t, lambda v: F.binary_cross_entropy_with_logits(v, t, reduction=red))
    add('bce_with_logits', red, z, t,
        lambda v: F.binary_cross_entropy_with_logits(v, t, weight=bw, pos_weight=pw, reduction=red),
        weight=bw, pos_weight=pw)

  # class probabilities as cross_entropy's target
  probs = randn((N, C), 1030).softmax(1)
  probs4 = randn((2, C, 3, 4), 1031).softmax(1)
  for red in ('none', 'mean', 'sum'):
    add('cross_entropy_probs', red, logits, probs, lambda v: F.cross_entropy(v, probs, reduction=red))
    add('cross_entropy_probs', red, logits, probs,
        lambda v: F.cross_entropy(v, probs, weight=weight, reduction=red, label_smoothing=0.2), weight=weight,
        label_smoothing=0.2)
    add('cross_entropy_probs', red, logits4, probs4, lambda v: F.cross_entropy(v, probs4, reduction=red))

  # the elementwise losses; differences near beta / delta on both sides
  a, b = randn((5, 6), 1040, scale=1.5), randn((5, 6), 1041)
  a64, b64 = randn((4, 3), 1042, torch.float64), randn((4, 3), 1043, torch.float64)
  p_in = torch.rand((5, 6), generator=gen(1044)) * 0.98 + 0.01
  p_in.view(-1)[:2] = torch.tensor([0.0, 1.0])  # log clamps at -100
  p_t = torch.rand((5, 6), generator=gen(1045))
  p_w = torch.rand((6,), generator=gen(1046)) + 0.5
  logq, logp_t = randn((4, 7), 1047).log_softmax(1), randn((4, 7), 1048).log_softmax(1)
  for red in ('none', 'mean', 'sum'):
    for beta in (1.0, 0.5, 0.0):
      add('smooth_l1', red, a, b, lambda v: F.smooth_l1_loss(v, b, reduction=red, beta=beta), number=beta)
    add('smooth_l1', red, a64, b64, lambda v: F.smooth_l1_loss(v, b64, reduction=red), number=1.0)
    for delta in (1.0, 2.0):
      add('huber', red, a, b, lambda v: F.huber_loss(v, b, reduction=red, delta=delta), number=delta)
    add('bce', red, p_in, p_t, lambda v: F.binary_cross_entropy(v, p_t, reduction=red))
    add('bce', red, p_in, p_t, lambda v: F.binary_cross_entropy(v, p_t, weight=p_w, reduction=red), weight=p_w)
  for red in ('none', 'mean', 'sum', 'batchmean'):
    add('kl_div', red, logq, logp_t.exp(), lambda v: F.kl_div(v, logp_t.exp(), reduction=red))
    add('kl_div', red, logq, logp_t, lambda v: F.kl_div(v, logp_t, reduction=red, log_target=True), log_target=True)
  x1, x2 = randn((8,), 1050), randn((8,), 1051)
  y = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, -1.0])
  c1, c2 = randn((6, 5), 1052), randn((6, 5), 1053)
  c2[0] = c1[0] * 2.0  # cos = 1
  cy = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
  for red in ('none', 'mean', 'sum'):
    add('margin_ranking', red, x1, y, lambda v: F.margin_ranking_loss(v, x2, y, margin=0.3, reduction=red),
        input2=x2, number=0.3)
    add('cosine_embedding', red, c1, cy, lambda v: F.cosine_embedding_loss(v, c2, cy, margin=0.2, reduction=red),
        input2=c2, number=0.2)
  return out


# ---------------------------------------------------------------------------------------------
# PyTorch 2.x's torch/optim/adam.py _single_tensor_adam (non-capturable path), verbatim in its
# arithmetic; run here on 1.13's kernels, which are the same (lerp and addcmul fused on AVX2).
class AdamV2:
  def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
               decoupled=False):
    self.params = list(params)
    self.lr, self.betas, self.eps, self.wd, self.amsgrad, self.decoupled = lr, betas, eps, weight_decay, amsgrad, decoupled
    self.state = [None] * len(self.params)

  def zero_grad(self):
    for p in self.params:
      p.grad = None

  @torch.no_grad()
  def step(self):
    beta1, beta2 = self.betas
    lr, eps, weight_decay = self.lr, self.eps, self.wd
    for i, param in enumerate(self.params):
      if param.grad is None:
        continue
      if self.state[i] is None:
        self.state[i] = {'step': torch.tensor(0.0), 'exp_avg': torch.zeros_like(param),
                         'exp_avg_sq': torch.zeros_like(param), 'max_exp_avg_sq': torch.zeros_like(param)}
      st = self.state[i]
      grad = param.grad
      exp_avg, exp_avg_sq, step_t = st['exp_avg'], st['exp_avg_sq'], st['step']
      step_t += 1
      if weight_decay != 0:
        if self.decoupled:
          param.mul_(1 - lr * weight_decay)
        else:
          grad = grad.add(param, alpha=weight_decay)
      exp_avg.lerp_(grad, 1 - beta1)
      exp_avg_sq.mul_(beta2).addcmul_(grad, grad.conj(), value=1 - beta2)
      step = step_t.item()
      bias_correction1 = 1 - beta1 ** step
      bias_correction2 = 1 - beta2 ** step
      step_size = lr / bias_correction1
      bias_correction2_sqrt = bias_correction2 ** 0.5
      if self.amsgrad:
        torch.maximum(st['max_exp_avg_sq'], exp_avg_sq, out=st['max_exp_avg_sq'])
        denom = (st['max_exp_avg_sq'].sqrt() / bias_correction2_sqrt).add_(eps)
      else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
      param.addcdiv_(exp_avg, denom, value=-step_size)


OPTIMIZERS = [
    ('sgd', 'sgd', {'lr': 0.1}),
    ('sgd_momentum', 'sgd', {'lr': 0.05, 'momentum': 0.9}),
    ('sgd_dampening', 'sgd', {'lr': 0.05, 'momentum': 0.9, 'dampening': 0.3}),
    ('sgd_nesterov', 'sgd', {'lr': 0.05, 'momentum': 0.9, 'nesterov': True}),
    ('sgd_weight_decay', 'sgd', {'lr': 0.05, 'momentum': 0.9, 'weight_decay': 0.01}),
    ('adam', 'adam', {'lr': 0.01}),
    ('adam_defaults', 'adam', {}),
    ('adam_weight_decay', 'adam', {'lr': 0.01, 'weight_decay': 0.01}),
    ('adam_amsgrad', 'adam', {'lr': 0.01, 'amsgrad': True}),
    ('adamw', 'adamw', {'lr': 0.01}),
    ('adamw_amsgrad', 'adamw', {'lr': 0.01, 'weight_decay': 0.1, 'amsgrad': True}),
]


def make_opt(kind, params, opts, v2=False):
  if kind == 'sgd':
    return torch.optim.SGD(params, **opts)
  if v2:
    o = dict(opts)
    if kind == 'adamw':
      o.setdefault('weight_decay', 1e-2)
    return AdamV2(params, decoupled=(kind == 'adamw'), **o)
  return (torch.optim.Adam if kind == 'adam' else torch.optim.AdamW)(params, **opts)


def enc_opts(opts):
  return {k: (v if isinstance(v, bool) else hexd(v)) for k, v in opts.items()}


def optim_step_cases():
  out = []
  for k, (name, kind, opts) in enumerate(OPTIMIZERS):
    p0 = randn((3, 5), 1100 + k)
    grads = [randn((3, 5), 1200 + 10 * k + s, scale=0.5 + s) for s in range(8)]
    case = {'name': 'optim_%s' % name, 'optimizer': kind, 'options': enc_opts(opts), 'param': enc(p0),
            'grads': [enc(g) for g in grads]}
    for key, v2 in (('params', False), ('params_v2', True)):
      if v2 and kind == 'sgd':
        continue
      p = p0.clone().requires_grad_()
      opt = make_opt(kind, [p], opts, v2)
      trace = []
      for g in grads:
        p.grad = g.clone()
        opt.step()
        trace.append(enc(p))
      case[key] = trace
    out.append(case)
  return out


def training_cases():
  out = []
  xl = randn((32, 6), 1300)
  yl = randn((32, 2), 1301)
  xm = randn((32, 8), 1302)
  ym = torch.randint(0, 4, (32,), generator=gen(1303))

  def model(kind, seed):
    torch.manual_seed(seed)
    if kind == 'linear':
      return nn.Linear(6, 2)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

  for mkind, lkind, x, y in (('linear', 'mse', xl, yl), ('mlp', 'cross_entropy', xm, ym)):
    for k, (name, kind, opts) in enumerate(OPTIMIZERS):
      seed = 1400 + k
      m = model(mkind, seed)
      case = {'name': 'train_%s_%s' % (mkind, name), 'model': mkind, 'loss': lkind, 'x': enc(x), 'y': enc(y),
              'seed': seed, 'init': [enc(p) for _, p in m.named_parameters()], 'optimizer': kind,
              'options': enc_opts(opts), 'steps': 20}
      for key, v2 in (('losses', False), ('losses_v2', True)):
        if v2 and kind == 'sgd':
          continue
        m = model(mkind, seed)
        opt = make_opt(kind, list(m.parameters()), opts, v2)
        losses = []
        for _ in range(20):
          opt.zero_grad()
          pred = m(x)
          loss = F.mse_loss(pred, y) if lkind == 'mse' else F.cross_entropy(pred, y)
          losses.append(hexf(loss.item(), torch.float32))
          loss.backward()
          opt.step()
        case[key] = losses
      out.append(case)
  return out


def scheduler_cases():
  out = []
  cfgs = [('step', 0.1, {'step_size': 3, 'gamma': 0.5}, 20), ('step', 0.05, {'step_size': 1, 'gamma': 0.9}, 15),
          ('cosine', 0.1, {'T_max': 10, 'eta_min': 1e-3}, 45), ('cosine', 1.0, {'T_max': 7, 'eta_min': 0.0}, 30),
          ('cosine', 0.01, {'T_max': 1, 'eta_min': 1e-4}, 6)]
  for k, (kind, base, args, steps) in enumerate(cfgs):
    p = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([p], lr=base)
    if kind == 'step':
      s = torch.optim.lr_scheduler.StepLR(opt, args['step_size'], gamma=args['gamma'])
    else:
      s = torch.optim.lr_scheduler.CosineAnnealingLR(opt, args['T_max'], eta_min=args['eta_min'])
    lrs = [hexd(s.get_last_lr()[0])]
    for _ in range(steps):
      opt.step()
      s.step()
      lrs.append(hexd(s.get_last_lr()[0]))
    out.append({'name': 'sched_%d_%s' % (k, kind), 'scheduler': kind, 'base_lr': hexd(base),
                'args': {a: (v if isinstance(v, int) else hexd(v)) for a, v in args.items()}, 'steps': steps,
                'lrs': lrs})
  return out


# The lambdas of LambdaLR cases, by name (tests/test_optim.cpp writes the same functions).
LAMBDAS = {'pow': lambda e: 0.95**e, 'warmup': lambda e: min(1.0, (e + 1) / 10)}


def scheduler_group_cases():
  """LinearLR, LambdaLR, OneCycleLR and SequentialLR over one or two parameter groups; lrs and
  momenta (SGD's momentum or Adam's beta1) per group after construction and each step."""
  cfgs = [('linear', 'sgd', [0.1], {'start_factor': 0.25, 'end_factor': 1.0, 'total_iters': 6}, 12),
          ('linear', 'sgd', [0.1, 0.02], {'start_factor': 1.0, 'end_factor': 0.1, 'total_iters': 9}, 12),
          ('lambda', 'sgd', [0.1, 0.3], {'fn': ['pow', 'warmup']}, 15),
          ('lambda', 'sgd', [0.05], {'fn': ['warmup']}, 12),
          ('onecycle', 'sgd', [0.1], {'max_lr': 0.5, 'total_steps': 30}, 30),
          ('onecycle', 'adam', [1e-3, 1e-3], {'max_lr': [1e-2, 3e-3], 'total_steps': 25, 'pct_start': 0.25,
                                             'anneal_strategy': 'linear'}, 25),
          ('onecycle', 'adamw', [1e-3], {'max_lr': 4e-3, 'total_steps': 40, 'three_phase': True, 'div_factor': 10.0,
                                         'final_div_factor': 100.0, 'base_momentum': 0.8, 'max_momentum': 0.9}, 40),
          ('onecycle', 'sgd', [0.1], {'max_lr': 0.3, 'total_steps': 20, 'cycle_momentum': False}, 20),
          ('sequential', 'adamw', [6e-4, 6e-4], {'warmup': 10, 'start_factor': 0.01, 'T_max': 40, 'eta_min': 6e-5}, 60)]
  out = []
  for k, (kind, okind, bases, args, steps) in enumerate(cfgs):
    groups = [{'params': [torch.zeros(2, requires_grad=True)], 'lr': b} for b in bases]
    opt = torch.optim.SGD(groups, lr=bases[0], momentum=0.9) if okind == 'sgd' else \
        (torch.optim.Adam if okind == 'adam' else torch.optim.AdamW)(groups, lr=bases[0])
    S = torch.optim.lr_scheduler
    if kind == 'linear':
      s = S.LinearLR(opt, **args)
    elif kind == 'lambda':
      s = S.LambdaLR(opt, [LAMBDAS[f] for f in args['fn']] if len(args['fn']) > 1 else LAMBDAS[args['fn'][0]])
    elif kind == 'onecycle':
      s = S.OneCycleLR(opt, **args)
    else:
      warm = S.LinearLR(opt, start_factor=args['start_factor'], total_iters=args['warmup'])
      cos = S.CosineAnnealingLR(opt, T_max=args['T_max'], eta_min=args['eta_min'])
      s = S.SequentialLR(opt, [warm, cos], milestones=[args['warmup']])

    def momenta():
      return [hexd(g['momentum'] if okind == 'sgd' else g['betas'][0]) for g in opt.param_groups]

    lrs, ms = [[hexd(g['lr']) for g in opt.param_groups]], [momenta()]
    for _ in range(steps):
      opt.step()
      with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # SequentialLR's step(0) is deprecated
        s.step()
      lrs.append([hexd(g['lr']) for g in opt.param_groups])
      ms.append(momenta())
    enc_arg = lambda v: v if isinstance(v, (int, str, bool)) else ([enc_arg(x) for x in v] if isinstance(v, list)
                                                                  else hexd(v))
    out.append({'name': 'sched_groups_%d_%s' % (k, kind), 'scheduler': kind, 'optimizer': okind,
                'base_lrs': [hexd(b) for b in bases], 'args': {a: enc_arg(v) for a, v in args.items()},
                'steps': steps, 'lrs': lrs, 'momenta': ms})
  return out


def main():
  path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'tests', 'data',
                                                            'pytorch-nn.json')
  sections = {}
  for name, fn in (('gelu', gelu_cases), ('dropout', dropout_cases), ('embedding_init', embedding_init_cases),
                   ('embedding', embedding_cases), ('layer_norm', layer_norm_cases), ('batch_norm', batch_norm_cases),
                   ('loss', loss_cases), ('optim_steps', optim_step_cases), ('training', training_cases),
                   ('scheduler', scheduler_cases), ('scheduler_groups', scheduler_group_cases),
                   ('group_norm', group_norm_cases), ('channel_dropout', channel_dropout_cases)):
    sections[name] = fn()
  doc = {'torch_version': torch.__version__, 'generator': 'tools/gen_golden_nn.py', 'sections': sections}
  with open(path, 'w') as f:
    json.dump(doc, f, indent=None, separators=(',', ':'), sort_keys=True)
    f.write('\n')
  print('wrote', path, sum(len(v) for v in sections.values()), 'cases')


if __name__ == '__main__':
  main()
