"""A character-level GPT trained on Shakespeare, then sampled: the Python twin of gpt.cpp.

With ditto (the default) it prints the C++ example's bits: the same losses, the same sample.
It is a PyTorch program (`import ditto as torch`); --torch runs it on PyTorch itself, whose
losses follow ditto's to within rounding.

    python3 examples/gpt/gpt.py                      # as gpt_example
    python3 examples/gpt/gpt.py --steps 50 --torch   # on PyTorch
"""
import argparse
import math
import os
import struct
import sys
import time
import warnings


def parse_args(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=os.path.join(here, "shakespeare.txt"))
    for name, default in (("steps", 300), ("batch", 16), ("accum", 1), ("block", 128), ("layers", 4), ("heads", 4),
                          ("embd", 128), ("warmup", 20), ("log-every", 10), ("stop-at", -1), ("eval-batches", 4),
                          ("sample", 300), ("seed", 1337), ("sample-seed", 42)):  # fmt: skip
        p.add_argument("--" + name, type=int, default=default)
    for name, default in (("dropout", 0.0), ("lr", 1e-3), ("min-lr", 1e-4), ("weight-decay", 0.1), ("clip", 1.0),
                          ("temperature", 0.8)):  # fmt: skip
        p.add_argument("--" + name, type=float, default=default)
    p.add_argument("--save", default="gpt.ckpt")
    p.add_argument("--resume", default="")
    p.add_argument("--prompt", default="ROMEO:")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--torch", action="store_true", help="run on PyTorch instead of ditto")
    a = p.parse_args(argv)
    if a.embd % a.heads:
        p.error("--embd must be a multiple of --heads")
    if a.warmup < 1:
        p.error("--warmup must be at least 1")
    return a


args = parse_args()
if args.torch:
    import torch
else:
    import ditto as torch
nn, F = torch.nn, torch.nn.functional


def attention(q, k, v, mask, causal, dropout):
    if hasattr(F, "scaled_dot_product_attention"):  # ditto's fused kernel; PyTorch 2.x
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout, is_causal=causal)
    # PyTorch 1.13 has no fused attention: its matmul, mask, softmax, matmul
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    if causal:
        mask = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
    if mask is not None:
        att = att.masked_fill(mask.logical_not(), float("-inf"))
    return F.dropout(att.softmax(-1), dropout) @ v


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads = c.heads
        self.dropout = c.dropout
        self.c_attn = nn.Linear(c.embd, 3 * c.embd)
        self.c_proj = nn.Linear(c.embd, c.embd)
        self.resid_dropout = nn.Dropout(c.dropout)

    def forward(self, x, cache=None):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        past = 0
        if cache is not None:
            if cache[0] is not None:
                past = cache[0].size(2)
                k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
            cache[0], cache[1] = k, v
        p = self.dropout if self.training else 0.0
        if past == 0:
            y = attention(q, k, v, None, True, p)
        else:  # query i (position past + i) sees keys 0 .. past + i
            mask = torch.arange(past + T).unsqueeze(0) <= (torch.arange(T) + past).unsqueeze(1)
            y = attention(q, k, v, None if T == 1 else mask, False, p)
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c.embd, 4 * c.embd)
        self.c_proj = nn.Linear(4 * c.embd, c.embd)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(F.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.embd)
        self.attn = CausalSelfAttention(c)
        self.ln_2 = nn.LayerNorm(c.embd)
        self.mlp = MLP(c)

    def forward(self, x, cache=None):
        h = x + self.attn(self.ln_1(x), cache)
        return h + self.mlp(self.ln_2(h))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.block = c.block
        self.wte = nn.Embedding(c.vocab, c.embd)
        self.wpe = nn.Embedding(c.block, c.embd)
        self.drop = nn.Dropout(c.dropout)
        self.h = nn.ModuleList([Block(c) for _ in range(c.layers)])
        self.ln_f = nn.LayerNorm(c.embd)
        self.lm_head = nn.Linear(c.embd, c.vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying: one parameter
        with torch.no_grad():  # nanoGPT's initialisation, in named_parameters order
            for name, p in self.named_parameters():
                if name.endswith("c_proj.weight"):
                    nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2.0 * c.layers))
                elif p.dim() == 2:
                    nn.init.normal_(p, 0.0, 0.02)
                elif name.endswith("bias"):
                    nn.init.zeros_(p)

    def forward(self, idx, cache=None):
        T = idx.size(1)
        past = cache[0][0].size(2) if cache is not None and cache[0][0] is not None else 0
        if past + T > self.block:
            raise ValueError(f"sequence of length {past + T} exceeds the block size {self.block}")
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(past, past + T)))
        for i, b in enumerate(self.h):
            x = b(x, None if cache is None else cache[i])
        return self.lm_head(self.ln_f(x))


def batch_of(data, B, block, gen):
    ix = torch.randint(0, data.size(0) - block, (B,), generator=gen)
    pos = ix.unsqueeze(1) + torch.arange(block)
    return data.index_select(0, pos.flatten()).view(B, block), data.index_select(0, (pos + 1).flatten()).view(B, block)


def sample(model, chars, stoi, a, layers):
    """The C++ example's sampling: restart from the last half of the context when it fills the
    block; with the KV cache one position per character, without it the whole context."""
    gen = torch.Generator()
    gen.manual_seed(a.sample_seed)
    context = [stoi[ch] for ch in a.prompt]
    out = a.prompt
    new_cache = lambda: None if a.no_cache else [[None, None] for _ in range(layers)]  # noqa: E731
    with torch.no_grad():
        model.eval()
        cache = new_cache()
        logits = model(torch.tensor([context]), cache)
        for _ in range(a.sample):
            last = logits.select(1, logits.size(1) - 1) / a.temperature
            nxt = int(torch.multinomial(last.softmax(-1), 1, False, generator=gen).item())
            out += chars[nxt]
            context.append(nxt)
            if len(context) > a.block:
                context = context[len(context) - a.block // 2:]
                cache = new_cache()
                logits = model(torch.tensor([context]), cache)
            elif cache is None:
                logits = model(torch.tensor([context]))
            else:
                logits = model(torch.tensor([context[-1:]]), cache)
        model.train()
    return out


def main(a):
    with open(a.data, encoding="utf-8") as f:
        text = f.read()
    chars = "".join(sorted(set(text)))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[ch] for ch in text], dtype=torch.int64)
    n_train = data.size(0) * 9 // 10
    train, val = data[:n_train], data[n_train:]
    a.vocab = len(chars)

    torch.manual_seed(a.seed)
    model = GPT(a)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.99), weight_decay=a.weight_decay)  # fmt: skip
    S = torch.optim.lr_scheduler
    warmup = min(a.warmup, a.steps)
    schedule = S.SequentialLR(opt, [S.LinearLR(opt, 0.01, 1.0, warmup), S.CosineAnnealingLR(opt, max(a.steps - warmup, 1),
                                                                                             a.min_lr)], [warmup])  # fmt: skip
    data_gen = torch.Generator()
    data_gen.manual_seed(a.seed + 1)
    params = sum(p.numel() for p in model.parameters())
    print(f"GPT: {a.layers} layers, {a.heads} heads, {a.embd} embedding, context {a.block}, {params / 1e6:.2f}M "
          f"parameters; vocabulary {a.vocab}, {data.size(0)} characters")  # fmt: skip
    step = 0
    if a.resume:
        step, _ = torch.load_checkpoint(a.resume, model, opt, [schedule], [data_gen])
        print(f"resumed at step {step}")
    start, first, tty = time.monotonic(), step, sys.stderr.isatty()
    last_loss = 0.0
    while step < a.steps:
        opt.zero_grad()
        loss_sum = 0.0
        for _ in range(a.accum):
            x, y = batch_of(train, a.batch, a.block, data_gen)
            loss = F.cross_entropy(model(x).view(-1, a.vocab), y.view(-1))
            loss_sum += loss.item()
            (loss if a.accum == 1 else loss / a.accum).backward()
        if a.clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        lr = opt.param_groups[0]["lr"]
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's SequentialLR warns of step(0)
            schedule.step()
        step += 1
        last_loss = struct.unpack("<f", struct.pack("<f", loss_sum / a.accum))[0]
        if step % a.log_every == 0 or step == a.steps or step == 1:
            print(f"step {step:5d}/{a.steps}  loss {last_loss:.6f}  lr {lr:.3e}", flush=True)
        rate = (step - first) * a.batch * a.accum * a.block / (time.monotonic() - start)
        if tty:
            done = 30 * step // a.steps
            print(f"\r[{'#' * done}{'.' * (30 - done)}] {step}/{a.steps}  {rate:.0f} tok/s", end="\n" if step == a.steps
                  else "", file=sys.stderr, flush=True)  # fmt: skip
        elif step % a.log_every == 0 or step == a.steps:
            print(f"step {step}/{a.steps}  {rate:.0f} tok/s", file=sys.stderr, flush=True)
        if step == a.stop_at:
            break
    if a.save:
        if hasattr(torch, "save_checkpoint"):
            torch.save_checkpoint(a.save, model, opt, [schedule], [data_gen], step=step)
        else:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step}, a.save)
        print(f"checkpoint {a.save} at step {step}")
    if step == a.stop_at:
        return
    print("last loss bits 0x%08x" % struct.unpack("<I", struct.pack("<f", last_loss))[0])
    if a.eval_batches > 0:
        eval_gen = torch.Generator()
        eval_gen.manual_seed(a.seed + 2)
        with torch.no_grad():
            model.eval()
            v = 0.0
            for _ in range(a.eval_batches):
                x, y = batch_of(val, a.batch, a.block, eval_gen)
                v += F.cross_entropy(model(x).view(-1, a.vocab), y.view(-1)).item()
            model.train()
        print(f"validation loss {v / a.eval_batches:.6f}")
    if a.sample > 0:
        print(f"--- sample ({a.sample} characters, temperature {a.temperature:g}, seed {a.sample_seed}) ---")
        print(sample(model, chars, stoi, a, a.layers))


if __name__ == "__main__":
    main(args)
