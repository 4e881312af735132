"""Peak memory of one causal attention forward and backward at (8, 6, 256, 64): the growth of the
process's maximum RSS around the call, for ditto's fused kernel or PyTorch 1.13's composition.

    PYTHONPATH=build/python /usr/bin/python3 bench/attention_memory.py ditto
    /usr/bin/python3 bench/attention_memory.py torch
"""
import resource, sys
which = sys.argv[1]
if which == "torch":
    import torch as m
    torch = m
else:
    import ditto as m
    import torch
def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
m.manual_seed(0)
q, k, v = (m.randn(8, 6, 256, 64, requires_grad=True) for _ in range(3))
g = m.ones(8, 6, 256, 64)

base = rss()
if which == "torch":
    w = torch.matmul(q, k.transpose(-2, -1)) * 0.125
    future = torch.ones(256, 256, dtype=torch.bool).triu(1)
    y = torch.matmul(w.masked_fill(future, float("-inf")).softmax(-1), v)
else:
    y = m.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
y.backward(g)
print(which, "peak growth MiB", round(rss() - base, 1))
