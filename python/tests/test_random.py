"""Random ops against PyTorch 1.13 after the same seed: the same bits, and the generator left where
PyTorch leaves it."""
import pytest

import ditto


def test_multinomial_gives_pytorchs_indices_and_leaves_the_generator_where_pytorch_does():
    torch = pytest.importorskip("torch")
    import numpy as np

    for seed in (0, 1, 42):
        for shape, dtype in (((65,), torch.float32), ((4, 65), torch.float32), ((3, 10), torch.float64)):
            torch.manual_seed(seed)
            p = torch.rand(*shape, dtype=dtype) ** 3
            pd = ditto.from_numpy(p.numpy().copy())
            for n, replacement in ((1, False), (5, False), (7, True), (1, True)):
                torch.manual_seed(seed)
                want, want_next = torch.multinomial(p, n, replacement), torch.rand(3)
                ditto.manual_seed(seed)
                got, got_next = ditto.multinomial(pd, n, replacement), ditto.rand(3)
                assert np.array_equal(got.numpy(), want.numpy()), (seed, shape, n, replacement)
                assert np.array_equal(got_next.numpy(), want_next.numpy())
    assert ditto.ones(4).multinomial(2).shape == (2,)
