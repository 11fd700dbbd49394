# SPDX-License-Identifier: Apache-2.0
"""Advanced indexing (index tensors, lists, masks) against PyTorch 1.13."""
import numpy as np
import pytest
import torch

import tessera

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)


def _both(key):
    """The key for torch and for tessera (tensors converted, the rest as is)."""
    def conv(k, lib):
        if isinstance(k, np.ndarray):
            return lib.tensor(k.tolist(), dtype=lib.bool if k.dtype == bool else lib.int64)
        return k
    if type(key) is tuple:
        return tuple(conv(k, torch) for k in key), tuple(conv(k, tessera) for k in key)
    return conv(key, torch), conv(key, tessera)


MASK0 = np.array([True, False])
MASK01 = np.array([[True, False, True], [False, False, True]])
KEYS = [
    [1, 0],
    [[0, 1], [1, -1]],                     # a list holding lists acts as a tuple
    [[0, 1]] * 40,                         # ... but not from 32 entries on
    np.array([1, -2]),
    (slice(None), [2, 0, 1]),
    (0, slice(None), [0, 3]),              # the int selects first: B stays in place
    ([0, 1], slice(None), [1, 2]),         # separated: B in front
    ([0, 1], [1, 2]),                      # adjacent at 0
    (slice(None), [0, 2], [1, 3]),         # adjacent at 1
    (slice(None), [0, 2], None, [1, 3]),   # None separates them
    (Ellipsis, [0, -1]),
    (Ellipsis, [[0], [1]], [1, 2, 3]),
    ([[0], [1]], slice(1, 3), Ellipsis, [0, 4]),
    MASK0,
    MASK01,
    (MASK01, [1, 2, 0]),
    (MASK0, slice(None), [1, 2]),
    (slice(None), np.array([True, False, True]), 2),
    X[:, :, :, 0] > 30,
    (X[:, :, 0, 0] > 20, Ellipsis, [4]),
    False,
    (None, [0], 1, None, slice(None, None, 2)),
    [True, False],
    [],
]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_getitem_matches_torch(key):
    tk, sk = _both(key)
    want = torch.from_numpy(X)[tk]
    got = tessera.from_numpy(X.copy())[sk]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_setitem_matches_torch(key):
    tk, sk = _both(key)
    want = torch.from_numpy(X.copy())
    # The values are a random array read through the same key, so that an
    # element a key names twice gets one value twice: which of two writes
    # wins is unspecified (torch's differs with its thread count).
    source = np.random.default_rng(0).standard_normal(X.shape).astype(np.float32)
    value = np.ascontiguousarray(torch.from_numpy(source)[tk].numpy())
    want[tk] = torch.from_numpy(value)
    got = tessera.from_numpy(X.copy())
    got[sk] = tessera.from_numpy(value)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_setitem_scalars_broadcast_and_views():
    want, got = torch.zeros(4, 5), tessera.zeros(4, 5)
    for lib, t in ((torch, want), (tessera, got)):
        t[t.new_zeros(1).long() if lib is torch else tessera.tensor([0])] = 3.0
        t[[1, 3], 1:4] = lib.tensor([1.0, 2.0, 3.0])      # a row broadcast to (2, 3)
        t[t > 2.5] = -1                                   # a mask and an int value
        t.T[[0, 4]] = 7.5                                 # through a non-contiguous view
        t[:, [2]] += 10                                   # read, add, write back
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_int_and_uint8_dtypes_and_devices_of_indices():
    x = tessera.arange(10) * 2
    assert x[tessera.tensor([3, 1], dtype=tessera.int32)].tolist() == [6, 2]
    assert x[np.array([9, -10])].tolist() == [18, 0]
    assert x[[np.int64(1), 2]].tolist() == [2, 4]
    assert x[np.bool_(True), [0, 9]].tolist() == [[0, 18]]
    assert x[tessera.arange(10, dtype=tessera.uint8) % 3 == 0].tolist() == [0, 6, 12, 18]


def test_errors_as_pytorch():
    x = tessera.zeros(2, 3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x[[0, 5]]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 1 with size 3"):
        x[:, [-4]]
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        x[[0, 9]] = 1.0
    with pytest.raises(IndexError, match=r"The shape of the mask \[3\] at index 0 does not match"):
        x[tessera.ones(3, dtype=tessera.bool)]
    with pytest.raises(IndexError, match="tensors used as indices must be long, byte or bool tensors"):
        x[tessera.tensor([0.0])]
    with pytest.raises(IndexError, match=r"could not be broadcast together with shapes \[2\], \[3\]"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0], [0]]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[[0], ::-1]


def test_masked_write_on_zero_dim_and_empty():
    z = tessera.zeros(())
    z[tessera.tensor(True)] = 4.0
    z[tessera.tensor(False)] = 5.0
    assert z.item() == 4.0
    e = tessera.zeros(0, 3)
    e[e > 0] = 1.0
    assert tuple(e[[]].shape) == (0, 3)
