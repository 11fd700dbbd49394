# SPDX-License-Identifier: Apache-2.0
"""The ops of ABI 1.5 against NumPy 1.24: MATH's twenty functions, atan2,
floor_divide, remainder, the bitwise ops and shifts, logaddexp, prod,
argmin, var and std (correction, tuples of dims, keepdim), across dtypes,
0-d, empty and strided inputs and the special values; then the composites
(Note [Composites]) on devices whose plugins lack them: the arena sample
(primitives and the CPU fallback) and the emulated cuda device, against the
CPU's results."""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tessera

from devices import arena_config, needs_arena

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, 0.25, 3.0, -7.75, 1e-8, 123.456, 1e30, -1e30,
           np.inf, -np.inf, np.nan]
MATH = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p",
        "log2", "log10", "floor", "ceil", "trunc", "round", "sign"]
NUMPY_NAME = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
              "atanh": "arctanh"}
RTOL = {"float64": 1e-13, "float32": 4e-6}


def np_fn(name):
    return getattr(np, NUMPY_NAME.get(name, name))


def to_np(t):
    return t.cpu().numpy()


def check(actual, expected, rtol=0.0):
    """Values, dtype and shape; NaN equals NaN, signed zeros compared too."""
    a = to_np(actual)
    assert a.dtype == expected.dtype, (a.dtype, expected.dtype)
    assert a.shape == expected.shape, (a.shape, expected.shape)
    if np.issubdtype(expected.dtype, np.floating):
        np.testing.assert_allclose(a, expected, rtol=rtol, atol=0, equal_nan=True)
        exact = (a == expected) & (a == 0)
        assert np.array_equal(np.signbit(a[exact]), np.signbit(expected[exact])), "sign of zero"
    else:
        np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", MATH)
def test_math_functions_match_numpy_on_special_values(name, dtype):
    x = np.array(SPECIAL, dtype=dtype)
    with np.errstate(all="ignore"):
        expected = np_fn(name)(x)
    if name == "sign":
        expected = np.where(expected == 0, 0.0, expected).astype(dtype)  # the Array API's sign(-0) is +0
    check(getattr(tessera, name)(tessera.from_numpy(x)), expected, RTOL[dtype])
    check(getattr(tessera.from_numpy(x), name)(), expected, RTOL[dtype])


@pytest.mark.parametrize("name", MATH)
def test_math_functions_on_random_strided_and_0d_inputs(name):
    rng = np.random.default_rng(7)
    base = rng.uniform(-3, 3, size=(6, 8))
    if name in ("acosh",):
        base = np.abs(base) + 1
    if name in ("asin", "acos", "atanh"):
        base = base / 3.5
    if name in ("log2", "log10", "log1p"):
        base = np.abs(base)
    strided = tessera.from_numpy(base).T[::2]  # a transposed, sliced view
    with np.errstate(all="ignore"):
        expected = np_fn(name)(base.T[::2])
    check(getattr(tessera, name)(strided), expected, 1e-13)
    zero_d = tessera.tensor(0.75, dtype=tessera.float64)
    check(getattr(tessera, name)(zero_d), np.asarray(np_fn(name)(np.float64(0.75))), 1e-13)
    empty = tessera.zeros((0, 3), dtype=tessera.float32)
    assert getattr(tessera, name)(empty).shape == (0, 3)


def test_math_on_integers_follows_the_array_api():
    x = np.array([-7, -1, 0, 3, 100], dtype=np.int32)
    t = tessera.from_numpy(x)
    for name in ("floor", "ceil", "trunc", "round"):
        check(getattr(tessera, name)(t), x.copy())  # integral already: same dtype
    check(tessera.sign(t), np.sign(x))
    check(tessera.sin(t), np.sin(x.astype(np.float32)), 4e-6)  # integers compute in float32, as exp
    u = tessera.from_numpy(np.array([0, 1, 250], dtype=np.uint8))
    check(tessera.sign(u), np.array([0, 1, 1], dtype=np.uint8))
    with pytest.raises((TypeError, RuntimeError), match="bool"):
        tessera.sin(tessera.tensor([True, False]))


def test_math_out_and_unknown_function():
    x = tessera.tensor([0.5, -1.5, 2.5], dtype=tessera.float64)
    out = tessera.empty(3, dtype=tessera.float64)
    assert tessera.floor(x, out=out) is out
    check(out, np.array([0.0, -2.0, 2.0]))
    tessera.round(x, out=x)  # in place
    check(x, np.array([0.0, -2.0, 2.0]))
    with pytest.raises(RuntimeError, match="math function 99"):
        tessera._C.math(99, x)


FLOATS = np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 5.0, np.inf, -np.inf, np.nan, 1e300, 3.0])
DIVISORS = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 2.0, 3.0, 1.0, 1e-300, np.inf])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_floor_divide_and_remainder_floats_match_numpy(dtype):
    a, b = FLOATS.astype(dtype), DIVISORS.astype(dtype)
    ta, tb = tessera.from_numpy(a), tessera.from_numpy(b)
    with np.errstate(all="ignore"):
        check(ta // tb, np.floor_divide(a, b), RTOL[dtype])
        check(ta % tb, np.remainder(a, b), RTOL[dtype])
        check(tessera.floor_divide(ta, 2), np.floor_divide(a, np.array(2, dtype=dtype)), RTOL[dtype])
        check(7 % tb, np.remainder(np.array(7, dtype=dtype), b), RTOL[dtype])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_floor_divide_and_remainder_integers_match_numpy(dtype):
    info = np.iinfo(dtype)
    a = np.array([7, -7, 7, -7, 0, info.min, info.max, 5, 13], dtype=np.int64).astype(dtype)
    b = np.array([2, 2, -2, -2, 3, -1, 7, 0, 13], dtype=np.int64).astype(dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fd, rm = np.floor_divide(a, b), np.remainder(a, b)
    check(tessera.from_numpy(a) // tessera.from_numpy(b), fd)
    check(tessera.from_numpy(a) % tessera.from_numpy(b), rm)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64"])
def test_bitwise_ops_match_numpy(dtype):
    rng = np.random.default_rng(3)
    if dtype == "bool":
        a, b = rng.integers(0, 2, 40).astype(bool), rng.integers(0, 2, 40).astype(bool)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, 40, endpoint=True).astype(dtype)
        b = rng.integers(info.min, info.max, 40, endpoint=True).astype(dtype)
    ta, tb = tessera.from_numpy(a), tessera.from_numpy(b)
    check(ta & tb, a & b)
    check(ta | tb, a | b)
    check(ta ^ tb, a ^ b)
    check(~ta, ~a)
    check(tessera.bitwise_and(ta[::2], tb[1::2]), a[::2] & b[1::2])
    c = ta.clone()
    c ^= tb
    check(c, a ^ b)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_shifts_match_numpy_with_counts_out_of_range(dtype):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    values = np.array([1, 5, info.max, info.min, -1 if info.min < 0 else 200, 0], dtype=np.int64).astype(dtype)
    counts = [0, 1, 3, bits - 1, bits, bits + 5] + ([-1, -8] if info.min < 0 else [])
    for c in counts:
        a = values
        b = np.full(values.shape, c, dtype=np.int64).astype(dtype)
        check(tessera.from_numpy(a) << tessera.from_numpy(b), np.left_shift(a, b))
        check(tessera.from_numpy(a) >> tessera.from_numpy(b), np.right_shift(a, b))


def test_bitwise_refuses_floats_and_shifts_refuse_bool():
    with pytest.raises((TypeError, RuntimeError), match="integer and bool dtypes only, not for float32"):
        tessera.ones(3) & tessera.ones(3)
    with pytest.raises((TypeError, RuntimeError), match="integer dtypes only, not for bool"):
        tessera.tensor([True]) << tessera.tensor([True])


def test_atan2_and_logaddexp_match_numpy_with_special_values():
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 700.0])
    a, b = np.meshgrid(vals, vals)
    ta, tb = tessera.from_numpy(a.copy()), tessera.from_numpy(b.copy())
    with np.errstate(all="ignore"):
        check(tessera.atan2(ta, tb), np.arctan2(a, b), 1e-15)
        check(tessera.logaddexp(ta, tb), np.logaddexp(a, b), 1e-15)
    check(tessera.atan2(tessera.tensor([1, -1]), tessera.tensor([0, 0])),  # integers: float32
          np.arctan2(np.array([1, -1], np.float32), np.array([0, 0], np.float32)), 1e-7)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64", "bool"])
def test_prod_matches_numpy(dtype):
    rng = np.random.default_rng(11)
    x = rng.integers(-3, 4, size=(3, 4, 5)).astype(dtype)
    t = tessera.from_numpy(x)
    want_dtype = x.dtype if np.issubdtype(x.dtype, np.floating) else np.int64
    for dim in (None, 0, 1, (0, 2), -1):
        expected = np.prod(x, axis=dim, dtype=want_dtype)
        check(tessera.prod(t, dim=dim), np.asarray(expected), 1e-6)
    check(tessera.prod(t, dim=1, keepdim=True), np.prod(x, axis=1, keepdims=True, dtype=want_dtype), 1e-6)
    check(tessera.prod(tessera.zeros((2, 0), dtype=tessera.float64), dim=1), np.ones(2))  # empty: identity


def test_argmin_matches_numpy_ties_nan_and_integers():
    x = np.array([[3.0, 1.0, 1.0, 5.0], [np.nan, 0.0, np.nan, -1.0], [2.0, 2.0, 2.0, 2.0]])
    t = tessera.from_numpy(x)
    check(tessera.argmin(t, dim=1), np.argmin(x, axis=1))
    check(tessera.argmin(t), np.asarray(np.argmin(x)))
    check(t.argmin(dim=0, keepdim=True), np.argmin(x, axis=0)[None, :])
    for dtype in ("int8", "uint8", "int32", "int64"):
        info = np.iinfo(dtype)
        v = np.array([5, info.max, info.min, info.min, 0], dtype=np.int64).astype(dtype)
        check(tessera.argmin(tessera.from_numpy(v)), np.asarray(np.argmin(v)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_var_and_std_match_numpy(dtype):
    rng = np.random.default_rng(5)
    x = rng.normal(3.0, 2.0, size=(4, 5, 6)).astype(dtype)
    t = tessera.from_numpy(x)
    rtol = 1e-12 if dtype == "float64" else 2e-5
    for dim in (None, 0, 2, (0, 2), (-1, -2)):
        for correction in (0, 1, 2.5):
            for keepdim in (False, True):
                want_var = np.asarray(np.var(x, axis=dim, ddof=correction, keepdims=keepdim))
                want_std = np.asarray(np.std(x, axis=dim, ddof=correction, keepdims=keepdim))
                check(tessera.var(t, dim=dim, correction=correction, keepdim=keepdim), want_var, rtol)
                check(t.std(dim=dim, correction=correction, keepdim=keepdim), want_std, rtol)
    check(t.var(unbiased=False), np.asarray(np.var(x)), rtol)
    check(tessera.var(t.transpose(0, 2)[1:], dim=0), np.var(x.transpose(2, 1, 0)[1:], axis=0, ddof=1), rtol)
    with np.errstate(all="ignore"):
        check(tessera.var(tessera.tensor([4.0], dtype=tessera.float64)), np.asarray(np.var([4.0], ddof=1)))
    with pytest.raises((TypeError, RuntimeError), match="floating"):
        tessera.var(tessera.tensor([1, 2, 3]))
    with pytest.raises((ValueError, RuntimeError), match="correction"):
        tessera.var(t, correction=-1)


COMPOSITES_SCRIPT = r"""
import json, sys
import numpy as np
import tessera
device = sys.argv[1]
rng = np.random.default_rng(2)
x = rng.normal(size=(5, 7))
x[1, 2] = np.nan
y = rng.normal(size=(5, 7))
y[0, 0] = x[0, 0] = np.inf
results = {}
for dev in ("cpu", device):
    a = tessera.from_numpy(x).to(dev)
    b = tessera.from_numpy(y).to(dev)
    i = tessera.from_numpy(rng.integers(-5, 5, size=(5, 7)).astype(np.int32)).to(dev) if dev == "cpu" else None
    r = {
        "gt": (a > b), "ge": (a >= b), "relu": tessera.relu(a), "sigmoid": tessera.sigmoid(a),
        "mean": a.mean(dim=1), "argmin": a.argmin(dim=0), "logaddexp": tessera.logaddexp(a, b),
        "var": b.var(dim=1, correction=0), "std": b.std(), "sigmoid_t": tessera.sigmoid(a.T),
    }
    results[dev] = {k: v.cpu().numpy() for k, v in r.items()}
ok = []
for k in results["cpu"]:
    c, d = results["cpu"][k], results[device][k]
    same = c.dtype == d.dtype and c.shape == d.shape and np.allclose(c, d, rtol=1e-12, atol=0, equal_nan=True)
    ok.append((k, bool(same)))
print(json.dumps(ok))
"""


def run_on(device, config):
    env = dict(os.environ, TESSERA_CONFIG=str(config), TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", COMPOSITES_SCRIPT, device], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


@needs_arena
def test_composites_on_a_device_with_primitives_only(tmp_path):
    path = arena_config(tmp_path)
    results = run_on("arena:0", path)
    assert all(results.values()), results


@pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ, reason="run by ctest, with cuda_emu.so")
def test_composites_on_the_emulated_cuda_device():
    results = run_on("cuda:0", os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"])
    assert all(results.values()), results
