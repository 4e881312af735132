# The seed's program (../shared/seeds/000_*.txt) with only its imports changed, from
# `import torch` / `from torch import nn`, then the seed's warn_only variant. It prints what
# PyTorch prints (tests/data/seed_example_pytorch.txt, made by tools/gen_seed_example_output.py
# from this very file); the refusal names ditto's switch instead of torch's.
import ditto as torch
from ditto import nn

torch.manual_seed(0)
torch.use_deterministic_algorithms(True)

x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
y = torch.tensor([[3.0], [5.0], [7.0], [9.0]])
model = nn.Linear(1, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

losses = []
for step in range(3):
    loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(round(loss.item(), 4))

print("Deterministic losses:", losses)
print("Mode enabled:", torch.are_deterministic_algorithms_enabled())

torch.manual_seed(0)
image = torch.randn(1, 1, 4, 4)
pooled, indices = nn.MaxPool2d(2, return_indices=True)(image)
try:
    nn.MaxUnpool2d(2)(pooled, indices, output_size=(1, 1, 4, 4))
    print("max_unpool2d: no error")
except RuntimeError as error:
    print("Rejected op: max_unpool2d")
    print("Error:", str(error).split(" You can turn off")[0])

# warn_only: the op runs; the warning goes to stderr
torch.use_deterministic_algorithms(True, warn_only=True)
pooled, indices = nn.MaxPool2d(2, return_indices=True)(torch.ones(1, 1, 4, 4))
out = nn.MaxUnpool2d(2)(pooled, indices, output_size=(1, 1, 4, 4))
print("Ran with warning only:", tuple(out.shape))
