"""NumPy and DLPack, both ways, sharing memory."""
import numpy as np
import pytest

import ditto

torch = pytest.importorskip("torch")  # Debian's python3-torch, installed by scripts/test.sh


@pytest.mark.parametrize("dtype, ddtype", [(np.float32, ditto.float32), (np.float64, ditto.float64),
                                           (np.int64, ditto.int64), (np.int32, ditto.int32), (np.bool_, ditto.bool)])  # fmt: skip
def test_from_numpy_shares_memory(dtype, ddtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    t = ditto.from_numpy(a)
    assert t.dtype is ddtype and tuple(t.shape) == (2, 3)
    assert t.tolist() == a.tolist()
    a[1, 2] = 0
    assert t[1, 2].item() == 0
    if dtype is not np.bool_:
        t[0, 0] = 5
        assert a[0, 0] == 5


def test_from_numpy_keeps_strides_and_the_array_alive():
    a = np.arange(12, dtype=np.float32).reshape(3, 4).T  # non-contiguous
    t = ditto.from_numpy(a)
    assert t.stride() == (1, 4) and t.tolist() == a.tolist()
    del a
    assert t.sum().item() == 66.0


def test_from_numpy_refuses_what_it_cannot_share():
    with pytest.raises(ValueError, match="negative"):
        ditto.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type uint8"):
        ditto.from_numpy(np.zeros(3, dtype=np.uint8))


def test_numpy_shares_memory_and_refuses_grad():
    t = ditto.arange(4.0)
    n = t.numpy()
    n[0] = 9
    assert t[0].item() == 9.0
    assert np.asarray(ditto.ones(2, dtype=ditto.float64)).dtype == np.float64
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\)"):
        ditto.ones(2, requires_grad=True).numpy()
    v = ditto.arange(6.0).reshape(2, 3).t()
    assert v.numpy().tolist() == v.tolist()


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32"])
def test_dlpack_to_and_from_pytorch_share_memory(dt):
    d = ditto.arange(6, dtype=getattr(ditto, dt)).reshape(2, 3)
    t = torch.from_dlpack(d)
    assert t.dtype == getattr(torch, dt) and t.tolist() == d.tolist()
    t[0, 1] = 7
    assert d[0, 1].item() == 7
    src = torch.arange(6, dtype=getattr(torch, dt)).reshape(3, 2).t()
    back = ditto.from_dlpack(src)
    assert back.tolist() == src.tolist() and back.stride() == src.stride()
    src[1, 1] = 42
    assert back[1, 1].item() == 42


def test_dlpack_round_trip_within_ditto_and_lifetime():
    d = ditto.tensor([True, False, True])
    e = ditto.from_dlpack(d)
    assert e.dtype is ditto.bool and e.tolist() == [True, False, True]
    x = ditto.from_dlpack(torch.ones(3) * 2)  # the producer's only reference is the capsule's
    assert x.tolist() == [2.0, 2.0, 2.0]
    assert ditto.Tensor.__dlpack_device__(d) == (1, 0)
    with pytest.raises(TypeError):
        ditto.from_dlpack(object())
    with pytest.raises(RuntimeError, match="requires grad"):
        ditto.ones(1, requires_grad=True).__dlpack__()


def test_ditto_and_torch_agree_on_data_handed_across():
    ditto.manual_seed(0)
    torch.manual_seed(0)
    a = ditto.randn(3, 4)
    b = torch.randn(3, 4)
    assert torch.equal(torch.from_dlpack(a), b)  # the same generator stream, bit for bit


def test_tensor_of_a_numpy_array_keeps_its_dtype_and_copies():
    for a, dt in ((np.array([True, False]), ditto.bool), (np.arange(3, dtype=np.int32), ditto.int32),
                  (np.linspace(0, 1, 4), ditto.float64), (np.ones((2, 2), dtype=np.float32).T, ditto.float32)):  # fmt: skip
        t = ditto.tensor(a)
        assert t.dtype is dt and t.tolist() == a.tolist()
        assert torch.tensor(a).tolist() == t.tolist()
    a = np.zeros(3)
    t = ditto.tensor(a, dtype=ditto.float32)
    a[0] = 1
    assert t.dtype is ditto.float32 and t.tolist() == [0.0, 0.0, 0.0]
