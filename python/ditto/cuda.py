"""ditto runs on the CPU: what PyTorch programs ask of torch.cuda answers that there is no GPU."""


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """As PyTorch without a GPU: nothing to seed."""


manual_seed_all = manual_seed
