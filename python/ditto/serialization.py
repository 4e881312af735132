"""Saving and loading: safetensors files (the format of Hugging Face's safetensors, which PyTorch
and most of the ecosystem read) and checkpoints that resume a run bit for bit.

    ditto.save_safetensors(model.state_dict(), "model.safetensors", {"format": "pt"})
    model.load_state_dict(ditto.load_safetensors("model.safetensors"))

    ditto.save_checkpoint("run.ckpt", model, optimizer, [scheduler], step=step)
    step, metadata = ditto.load_checkpoint("run.ckpt", model, optimizer, [scheduler])

The reader is ditto's C++ one (memory-mapped; a malformed file raises RuntimeError naming the
file and what is wrong). A checkpoint is one safetensors file: the model's state_dict under
"model.", the optimizer's state tensors under "optimizer.state.<index>.", each generator's state
under "generator.<j>.state" (the default generator first), and, as JSON in the metadata, the
optimizer's param_groups, the schedulers' state_dicts and the step. Python's json writes floats
with repr, so every lr and hyperparameter comes back as the same double.
"""
import json
import os
import struct

from ditto import _C

_FORMAT = "python-1"


def save_safetensors(tensors, filename, metadata=None):
    """Writes a dict of name -> Tensor to `filename` atomically (temporary file, fsync, rename)."""
    _C._save_safetensors(dict(tensors), os.fspath(filename), dict(metadata or {}))


def load_safetensors(filename):
    """name -> Tensor, in the file's data order."""
    return _C._load_safetensors(os.fspath(filename))[0]


def safetensors_metadata(filename):
    """The file's "__metadata__" map (str -> str)."""
    return _C._load_safetensors(os.fspath(filename))[1]


# State dicts hold ints, floats, strings, lists, tuples, dicts with int keys (MultiStepLR's
# milestones): JSON with tags keeps each type as it was.
def _encode(v, where):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return {"list" if isinstance(v, list) else "tuple": [_encode(x, where) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[_encode(k, where), _encode(x, where)] for k, x in v.items()]}
    raise TypeError(f"save_checkpoint: {where} holds a {type(v).__name__}, which a checkpoint does not store")


def _decode(v):
    if isinstance(v, dict):
        ((kind, items),) = v.items()
        if kind == "dict":
            return {_decode(k): _decode(x) for k, x in items}
        out = [_decode(x) for x in items]
        return out if kind == "list" else tuple(out)
    return v


def _generators(generators, include_default_generator):
    gens = [_C.default_generator] if include_default_generator else []
    return gens + list(generators or [])


def save_checkpoint(filename, model, optimizer, schedulers=(), generators=(), step=0, metadata=None,
                    include_default_generator=True):
    """Everything that decides the rest of a run, in one file, written atomically."""
    tensors, meta = {}, {}
    for k, v in (metadata or {}).items():
        if k.startswith("ditto."):
            raise ValueError(f'save_checkpoint: metadata key "{k}": keys starting with "ditto." are the checkpoint\'s own')
        meta[k] = v
    for k, t in model.state_dict().items():
        tensors["model." + k] = t
    opt = optimizer.state_dict()
    scalars = {}
    for idx, entries in opt["state"].items():
        for name, v in entries.items():
            if isinstance(v, _C.Tensor):
                tensors[f"optimizer.state.{idx}.{name}"] = v
            else:
                scalars.setdefault(str(idx), {})[name] = _encode(v, f"optimizer state {idx}.{name}")
    gens = _generators(generators, include_default_generator)
    for j, g in enumerate(gens):
        words = struct.unpack(f"<{len(g.get_state()) // 8}q", g.get_state())
        tensors[f"generator.{j}.state"] = _C.tensor(list(words), dtype=_C.int64)
    meta["ditto.checkpoint"] = _FORMAT
    meta["ditto.step"] = str(int(step))
    meta["ditto.optimizer"] = json.dumps(
        {"param_groups": _encode(opt["param_groups"], "param_groups"), "scalars": scalars})
    meta["ditto.schedulers"] = json.dumps([_encode(s.state_dict(), type(s).__name__) for s in schedulers])
    meta["ditto.generators"] = str(len(gens))
    save_safetensors(tensors, filename, meta)


def load_checkpoint(filename, model, optimizer, schedulers=(), generators=(), include_default_generator=True):
    """Restores what save_checkpoint saved into objects built as the saving run built them.
    Returns (step, the user's metadata)."""
    filename = os.fspath(filename)
    tensors, meta = _C._load_safetensors(filename)
    fmt = meta.get("ditto.checkpoint")
    if fmt is None:
        raise RuntimeError(f"load_checkpoint: {filename}: not a ditto checkpoint (no \"ditto.checkpoint\" metadata)")
    if fmt != _FORMAT:
        raise RuntimeError(f'load_checkpoint: {filename}: checkpoint format "{fmt}", ditto\'s Python reads "{_FORMAT}"'
                           + (" (a C++ checkpoint: load it with ditto::load_checkpoint)" if fmt == "1" else ""))
    schedulers, gens = list(schedulers), _generators(generators, include_default_generator)
    saved_scheds = [_decode(s) for s in json.loads(meta["ditto.schedulers"])]
    if len(saved_scheds) != len(schedulers):
        raise RuntimeError(f"load_checkpoint: {filename}: {len(saved_scheds)} schedulers were saved, {len(schedulers)} given")
    if int(meta["ditto.generators"]) != len(gens):
        raise RuntimeError(f"load_checkpoint: {filename}: {meta['ditto.generators']} generators were saved, "
                           f"{len(gens)} given (the default generator counts unless excluded)")
    opt_meta = json.loads(meta["ditto.optimizer"])
    state, model_state, states = {}, {}, []
    for k, t in tensors.items():
        if k.startswith("model."):
            model_state[k[6:]] = t
        elif k.startswith("optimizer.state."):
            idx, name = k[16:].split(".", 1)
            state.setdefault(int(idx), {})[name] = t
        elif k.startswith("generator."):
            pass
        else:
            raise RuntimeError(f'load_checkpoint: {filename}: unexpected tensor "{k}"')
    for idx, entries in opt_meta["scalars"].items():
        for name, v in entries.items():
            state.setdefault(int(idx), {})[name] = _decode(v)
    for j in range(len(gens)):
        t = tensors.get(f"generator.{j}.state")
        if t is None:
            raise RuntimeError(f'load_checkpoint: {filename}: no "generator.{j}.state"')
        states.append(struct.pack(f"<{t.numel()}q", *t.tolist()))
    model.load_state_dict(model_state)
    optimizer.load_state_dict({"state": state, "param_groups": _decode(opt_meta["param_groups"])})
    for s, saved in zip(schedulers, saved_scheds):
        s.load_state_dict(saved)
    for g, b in zip(gens, states):
        g.set_state(b)
    return int(meta["ditto.step"]), {k: v for k, v in meta.items() if not k.startswith("ditto.")}
