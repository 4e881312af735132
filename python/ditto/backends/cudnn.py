"""torch.backends.cudnn's flags, which programs set for reproducibility. ditto has no cuDNN: they
are stored and read back and change nothing, and, as in PyTorch, setting deterministic does not
turn on ditto.use_deterministic_algorithms (docs/spec/pytorch-determinism.md, section 1.3)."""
deterministic = False
benchmark = False
enabled = True


def is_available():
    return False
