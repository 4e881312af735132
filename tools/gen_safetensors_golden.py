#!/usr/bin/python3
"""Export PyTorch models' weights to safetensors, for tests/test_serialize.cpp and
python/tests/test_serialize.py: weights trained in PyTorch loaded into ditto give PyTorch's outputs.

Writes tests/data/safetensors/pytorch-models.safetensors (or the path given as the first argument).

Usage:  /usr/bin/python3 tools/gen_safetensors_golden.py [out.safetensors]   (Debian's python3-torch)

The file is written by the writer below, from the format's description (8-byte little-endian
header length, JSON header padded with spaces, tensors' row-major little-endian bytes one after
another), not by ditto: a reader written independently of it. Python's safetensors package is
not in Debian; where it is installed, this writes the file with it as well and checks that the
two agree on every tensor.

Tensors, by prefix:
  mlp.*     Sequential(Linear(6, 5), BatchNorm1d(5), ReLU(), Linear(5, 4)): its state_dict after
            three SGD steps in training mode (running statistics and num_batches_tracked set)
  mlp_io.input, mlp_io.output   an input and the model's eval-mode output
  cnn.*     Sequential(Conv2d(2, 3, 3, padding=1), BatchNorm2d(3), ReLU(), MaxPool2d(2),
            Flatten(), Linear(12, 2)), trained the same way; cnn_io.input, cnn_io.output
  half.f16, half.bf16   16-bit floats (F16, BF16); half.f16_as_f32, half.bf16_as_f32 the same
            values as float32 (PyTorch's .float(), exact)
Metadata: {"source": "tools/gen_safetensors_golden.py", "torch": <version>}.

PyTorch runs with its AVX2 kernels and one thread, so the file does not depend on the machine.
"""
import json
import os
import struct
import sys

if os.environ.get("ATEN_CPU_CAPABILITY") != "avx2":
    os.environ["ATEN_CPU_CAPABILITY"] = "avx2"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import torch  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32", torch.bool: "BOOL",
          torch.float16: "F16", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, tensor), laid out in that order."""
    header, chunks, at = {"__metadata__": metadata}, [], 0
    for name, t in tensors:
        t = t.detach().contiguous()
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [at, at + len(data)]}
        chunks.append(data)
        at += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def trained(model, x):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    out = []
    mlp = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.BatchNorm1d(5), torch.nn.ReLU(), torch.nn.Linear(5, 4))
    x = torch.randn(8, 6)
    trained(mlp, x)
    out += [("mlp." + k, v) for k, v in mlp.state_dict().items()]
    with torch.no_grad():
        out += [("mlp_io.input", x), ("mlp_io.output", mlp(x))]
    cnn = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3, padding=1), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 2))
    x = torch.randn(3, 2, 4, 4)
    trained(cnn, x)
    out += [("cnn." + k, v) for k, v in cnn.state_dict().items()]
    with torch.no_grad():
        out += [("cnn_io.input", x), ("cnn_io.output", cnn(x))]
    values = torch.tensor([1.0, -2.0, 0.1, 65504.0, 2.0**-24, float("inf"), -0.0, 3.14159])
    for name, dt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        h = values.to(dt)
        out += [("half." + name, h), ("half." + name + "_as_f32", h.float())]
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "safetensors",
                                                               "pytorch-models.safetensors")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    metadata = {"source": "tools/gen_safetensors_golden.py", "torch": torch.__version__}
    write_safetensors(path, out, metadata)
    try:
        from safetensors.torch import load_file
    except ImportError:
        print("safetensors is not installed: the file was checked by ditto's tests only")
    else:
        loaded = load_file(path)
        for name, t in out:
            assert torch.equal(loaded[name], t), name
        print("safetensors.torch.load_file reads every tensor back")
    print(f"wrote {path}: {len(out)} tensors, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
