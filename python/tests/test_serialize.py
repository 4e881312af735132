"""safetensors and checkpoints from Python: round trips, weights shared with PyTorch both ways (a
PyTorch-written file, committed, loaded into ditto; a ditto-written file read by a reader written
here and run in PyTorch), and a run resumed in a new process giving the bits of a run straight
through."""
import json
import os
import struct
import subprocess
import sys

import pytest

import ditto
from ditto import nn

HERE = os.path.dirname(os.path.abspath(__file__))
PYTORCH_FILE = os.path.join(HERE, "..", "..", "tests", "data", "safetensors", "pytorch-models.safetensors")


def bits(t):
    t = t.detach().contiguous()
    return (t.dtype, tuple(t.shape), t.numpy().tobytes())


def test_round_trip_keeps_every_bit_and_the_metadata(tmp_path):
    ditto.manual_seed(3)
    tensors = {
        "w": ditto.randn(3, 4),
        "d": ditto.randn(2, dtype=ditto.float64),
        "i": ditto.arange(5) * (1 << 40),
        "j": ditto.arange(3, dtype=ditto.int32),
        "b": ditto.randn(4) > 0,
        "s": ditto.tensor(1.5),
        "t": ditto.randn(3, 2).t(),
    }
    p = tmp_path / "a.safetensors"
    ditto.save_safetensors(tensors, p, {"k": "v"})
    back = ditto.load_safetensors(p)
    assert set(back) == set(tensors)
    for k in tensors:
        assert bits(back[k]) == bits(tensors[k]), k
    assert ditto.safetensors_metadata(p) == {"k": "v"}


def test_a_malformed_file_raises_naming_it(tmp_path):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(RuntimeError, match=r"bad\.safetensors\] header length 1000 runs past the end"):
        ditto.load_safetensors(p)
    with pytest.raises(TypeError, match='"x" is not a Tensor'):
        ditto.save_safetensors({"x": 3}, p)


def read_independently(path):
    """A safetensors reader from the format's description: name -> (dtype, shape, bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    assert n % 8 == 0
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    out, spans = {}, []
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        spans.append((b, end))
        out[name] = (e["dtype"], tuple(e["shape"]), body[b:end])
    at = 0
    for b, end in sorted(spans):
        assert b == at
        at = end
    assert at == len(body)
    return out, header.get("__metadata__", {})


def mlp_ditto():
    return nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 4))


def test_pytorch_written_weights_give_pytorchs_outputs():
    tensors = ditto.load_safetensors(PYTORCH_FILE)
    model = mlp_ditto()
    model.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("mlp.")})
    model.eval()
    got, want = model(tensors["mlp_io.input"]), tensors["mlp_io.output"]
    assert float((got - want).abs().max()) <= 4 * 1.2e-7 * max(float(want.abs().max()), 1.0)
    assert int(model[1].num_batches_tracked) == 3


def test_ditto_written_weights_run_in_pytorch(tmp_path):
    torch = pytest.importorskip("torch")  # Debian's python3-torch, installed by scripts/test.sh
    ditto.manual_seed(5)
    model = mlp_ditto()
    x = ditto.randn(8, 6)
    model(x)  # running statistics
    model.eval()
    p = tmp_path / "m.safetensors"
    ditto.save_safetensors(model.state_dict(), p, {"format": "pt"})
    raw, meta = read_independently(p)
    assert meta == {"format": "pt"}
    dt = {"F32": torch.float32, "I64": torch.int64}
    state = {k: torch.frombuffer(bytearray(b), dtype=dt[d]).reshape(s) for k, (d, s, b) in raw.items()}
    ref = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.BatchNorm1d(5), torch.nn.ReLU(), torch.nn.Linear(5, 4))
    ref.load_state_dict(state)
    ref.eval()
    with torch.no_grad():
        want = ref(torch.from_numpy(x.numpy().copy()))
    got = torch.from_numpy(model(x).detach().numpy().copy())
    torch.testing.assert_close(got, want, rtol=0, atol=4 * 1.2e-7 * max(float(want.abs().max()), 1.0))
    try:
        from safetensors.torch import load_file  # not in Debian; used where installed
    except ImportError:
        return
    for k, v in load_file(str(p)).items():
        assert torch.equal(v, state[k]), k


# A run of Adam, a cosine schedule, dropout (the default generator) and batches from a generator
# of its own; `python test_serialize.py <path>` is the second half of a resumed run, in a new process.
def make_run():
    ditto.manual_seed(11)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.25), nn.Linear(16, 3))
    opt = ditto.optim.Adam(model.parameters(), lr=1e-2)
    scheds = [ditto.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7),
              ditto.optim.lr_scheduler.MultiStepLR(opt, milestones=[4, 9, 9], gamma=0.5)]
    data = ditto.Generator().manual_seed(21)
    return model, opt, scheds, data


def train(model, opt, scheds, data, steps):
    losses = []
    for _ in range(steps):
        x, y = ditto.randn(16, 8, generator=data), ditto.randint(0, 3, (16,), generator=data)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        for s in scheds:
            s.step()
        losses.append(loss.item())
    return losses


def fingerprint(model, data):
    return [bits(p) for p in model.parameters()], ditto.get_rng_state(), data.get_state()


def test_a_run_resumed_in_a_new_process_gives_the_same_bits(tmp_path):
    model, opt, scheds, data = make_run()
    straight = train(model, opt, scheds, data, 12)
    end = fingerprint(model, data)

    model, opt, scheds, data = make_run()
    assert train(model, opt, scheds, data, 6) == straight[:6]
    ckpt = tmp_path / "run.ckpt"
    ditto.save_checkpoint(ckpt, model, opt, scheds, [data], step=6, metadata={"note": "half"})
    out = tmp_path / "rest.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, __file__, str(ckpt), str(out)], check=True, env=env, timeout=120)
    rest = json.loads(out.read_text())
    assert rest["step"] == 6 and rest["metadata"] == {"note": "half"}
    assert rest["losses"] == [x.hex() for x in straight[6:]]
    assert rest["end"] == [[repr(a) for a in p] for p in end[0]] and rest["rng"] == end[1].hex()
    assert rest["data"] == end[2].hex()


def test_a_checkpoint_of_other_objects_is_refused(tmp_path):
    model, opt, scheds, data = make_run()
    ckpt = tmp_path / "run.ckpt"
    ditto.save_checkpoint(ckpt, model, opt, scheds, [data])
    with pytest.raises(RuntimeError, match="2 schedulers were saved, 1 given"):
        ditto.load_checkpoint(ckpt, model, opt, scheds[:1], [data])
    with pytest.raises(RuntimeError, match="2 generators were saved, 1 given"):
        ditto.load_checkpoint(ckpt, model, opt, scheds)
    with pytest.raises(ValueError, match="checkpoint's own"):
        ditto.save_checkpoint(ckpt, model, opt, metadata={"ditto.step": "1"})
    ditto.save_safetensors(model.state_dict(), ckpt)
    with pytest.raises(RuntimeError, match="not a ditto checkpoint"):
        ditto.load_checkpoint(ckpt, model, opt)


def _resume(ckpt, out):
    ditto.manual_seed(999)  # whatever the new process did first
    model, opt, scheds, data = make_run()
    train(model, opt, scheds, data, 2)  # ... and other weights, optimizer state and schedule
    step, metadata = ditto.load_checkpoint(ckpt, model, opt, scheds, [data])
    losses = train(model, opt, scheds, data, 6)
    params, rng, data_state = fingerprint(model, data)
    with open(out, "w") as f:
        json.dump({"step": step, "metadata": metadata, "losses": [x.hex() for x in losses],
                   "end": [[repr(a) for a in p] for p in params], "rng": rng.hex(), "data": data_state.hex()}, f)


if __name__ == "__main__":
    _resume(sys.argv[1], sys.argv[2])
