# SPDX-License-Identifier: Apache-2.0
"""Random broadcasting arithmetic across dtypes, on Tessera and on PyTorch
1.13 side by side: result dtype, shape and values must agree, with tensors,
0-dim tensors and Python scalars on either side, in-place forms included,
and a call must raise (the same type) exactly when PyTorch's does."""
import operator
import random
import warnings

import numpy as np
import pytest

import tessera

torch = pytest.importorskip("torch", reason="PyTorch is not importable; the differential tests need it")

CASES = 600
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]
OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "maximum": lambda lib: lib.maximum, "minimum": lambda lib: lib.minimum,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "maximum": "maximum", "minimum": "minimum",
         "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
INPLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
           **{op: (lambda name: lambda x, y: getattr(x, name + "_")(y))(NAMES_CMP) for op, NAMES_CMP in
              (("==", "eq"), ("!=", "ne"), ("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge"))}}
# Result tolerances by dtype: one rounding of the result apart at most.
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-6, "float64": 1e-12}


def _broadcast_pair(rng):
    out = [rng.randint(1, 4) for _ in range(rng.randint(0, 3))]
    a = [s if rng.random() < 0.6 else 1 for s in out]
    b = [s if rng.random() < 0.6 else 1 for s in out]
    a = a[rng.randint(0, len(a)):] if rng.random() < 0.3 else a
    b = b[rng.randint(0, len(b)):] if rng.random() < 0.3 else b
    if rng.random() < 0.08 and a:
        a[-1] = 5  # usually not broadcastable
    return a, b


def _values(rng, shape, dtype):
    """Small values that every dtype holds exactly, so that only promotion,
    broadcasting and the op are under test."""
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        v = [rng.random() < 0.5 for _ in range(n)]
    elif dtype == "uint8":
        v = [rng.randint(0, 11) for _ in range(n)]
    elif dtype.startswith("int"):
        v = [rng.randint(-10, 10) for _ in range(n)]
    else:
        v = [rng.randint(-40, 40) / 8 for _ in range(n)]
    return np.array(v).reshape(shape)


def _make(lib, arr, dtype, strided):
    t = lib.tensor(arr.tolist(), dtype=getattr(lib, dtype))
    if strided and t.dim() == 2:
        # The same values through a transposed view: layouts must not matter.
        t = t.T.contiguous().T
    return t


def _scalar(rng):
    return rng.choice([rng.randint(-5, 5), rng.randint(-40, 40) / 8, rng.random() < 0.5, 2.5, -3, 0])


def _as_numpy(t):
    if isinstance(t, torch.Tensor):
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.numpy()
    if t.dtype is tessera.bfloat16:
        t = t.float()
    return t.numpy()


def _compare(ours, theirs, where):
    # The same dtype, each spelled by its own package: tessera.float32, torch.float32.
    assert repr(ours.dtype).replace("tessera.", "torch.", 1) == str(theirs.dtype), where
    assert tuple(ours.shape) == tuple(theirs.shape), where
    a, b = _as_numpy(ours), _as_numpy(theirs)
    name = str(theirs.dtype).replace("torch.", "")
    if name in TOL:
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=TOL[name], atol=0,
                                   equal_nan=True, err_msg=where)
    else:
        assert np.array_equal(a, b), where


def _run(fn_ours, fn_theirs, where):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn_theirs()
            error = None
        except Exception as e:
            expected, error = None, type(e)
    if error is not None:
        try:
            fn_ours()
        except error:
            return "raised"
        except Exception as e:
            pytest.fail("%s: PyTorch raised %s, tessera raised %s: %s" % (where, error.__name__, type(e).__name__, e))
        pytest.fail("%s: PyTorch raised %s, tessera did not" % (where, error.__name__))
    _compare(fn_ours(), expected, where)
    return "ok"


def _case(seed):
    rng = random.Random(seed)
    op = rng.choice(sorted(OPS))
    fn = OPS[op]
    call = (lambda lib, x, y: fn(lib)(x, y)) if op in ("maximum", "minimum") else (lambda lib, x, y: fn(x, y))
    da, db = rng.choice(DTYPES), rng.choice(DTYPES)
    sa, sb = _broadcast_pair(rng)
    va, vb = _values(rng, sa, da), _values(rng, sb, db)
    strided = rng.random() < 0.3
    form = rng.choice(["tt", "tt", "ts", "st", "inplace", "inplace_s", "out", "out_s"])
    dout = rng.choice(DTYPES)
    a_o, a_t = _make(tessera, va, da, strided), _make(torch, va, da, strided)
    b_o, b_t = _make(tessera, vb, db, strided), _make(torch, vb, db, strided)
    s = _scalar(rng)
    where = "seed %d: %s %s %s(%s) %s(%s) scalar %r" % (seed, form, op, da, sa, db, sb, s)
    if form == "tt":
        return _run(lambda: call(tessera, a_o, b_o), lambda: call(torch, a_t, b_t), where)
    if form == "ts":
        return _run(lambda: call(tessera, a_o, s), lambda: call(torch, a_t, s), where)
    if form == "st":
        if op in ("maximum", "minimum"):
            return "skipped"  # torch.maximum takes tensors only
        return _run(lambda: call(tessera, s, a_o), lambda: call(torch, s, a_t), where)
    if form in ("out", "out_s"):
        return _out_case(op, a_o, a_t, (b_o, b_t) if form == "out" else (s, s), dout, where + " out " + dout)
    if op not in INPLACE:
        return "skipped"
    ifn = INPLACE[op]
    other_o, other_t = (b_o, b_t) if form == "inplace" else (s, s)
    result = _run(lambda: ifn(a_o, other_o), lambda: ifn(a_t, other_t), where)
    if result == "ok":
        _compare(a_o, a_t, where + " (the in-place target)")
    return result


def _out_case(op, a_o, a_t, other, dout, where):
    """torch.<op>(a, other, out=c) with c of the broadcast shape, of any dtype."""
    b_o, b_t = other
    if op in ("maximum", "minimum") and not isinstance(b_t, torch.Tensor):
        return "skipped"  # torch.maximum takes tensors only
    try:
        shape = torch.broadcast_shapes(a_t.shape, b_t.shape if isinstance(b_t, torch.Tensor) else ())
    except RuntimeError:
        shape = a_t.shape  # the call must fail on both sides
    c_o = tessera.full(tuple(shape), 7, dtype=getattr(tessera, dout))
    c_t = torch.full(tuple(shape), 7, dtype=getattr(torch, dout))
    name = NAMES[op]
    result = _run(lambda: getattr(tessera, name)(a_o, b_o, out=c_o), lambda: getattr(torch, name)(a_t, b_t, out=c_t),
                  where)
    if result == "ok":
        _compare(c_o, c_t, where + " (the out= target)")
    else:
        _compare(c_o, torch.full(tuple(shape), 7, dtype=getattr(torch, dout)), where + " (untouched after an error)")
    return result


@pytest.mark.parametrize("seed", range(CASES))
def test_random_broadcast_arithmetic(seed):
    _case(seed)


def test_cases_cover_promotion_and_errors():
    outcomes = {}
    for seed in range(CASES):
        rng = random.Random(seed)
        rng.choice(sorted(OPS))
        outcomes.setdefault("dtypes", set()).add((rng.choice(DTYPES), rng.choice(DTYPES)))
    assert len(outcomes["dtypes"]) > 80  # most of the 100 dtype pairs


def test_out_forms_follow_numpy_where_torch_would_resize():
    """out= never resizes: inputs broadcast to out's shape, as NumPy's out= does."""
    a, b = np.arange(3, dtype=np.float32), np.full(3, 0.5, dtype=np.float32)
    c = np.zeros((2, 3), dtype=np.float64)
    np.add(a, b, out=c)
    c_o = tessera.zeros(2, 3, dtype=tessera.float64)
    assert tessera.add(tessera.tensor(a), tessera.tensor(b), out=c_o) is c_o
    np.testing.assert_array_equal(c_o.numpy(), c)
    np.exp(a, out=c)
    tessera.exp(tessera.tensor(a), out=c_o)
    np.testing.assert_allclose(c_o.numpy(), c, rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        tessera.add(tessera.zeros(2, 3), 1.0, out=tessera.zeros(3))
    # Aliasing: out is a view of an input shifted by one column; NumPy gives the as-if-copied result.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    x_o = tessera.tensor(x)
    np.multiply(x[:, :3], 2, out=x[:, 1:])
    tessera.mul(x_o[:, :3], 2, out=x_o[:, 1:])
    np.testing.assert_array_equal(x_o.numpy(), x)
    y = np.arange(6.0).reshape(2, 3)
    y_o = tessera.tensor(y)
    np.subtract(10.0, y, out=y)
    tessera.sub(10.0, y_o, out=y_o)
    np.testing.assert_array_equal(y_o.numpy(), y)
    with pytest.raises(TypeError, match="out"):
        tessera.add(x_o, x_o, out=3)


def test_zero_dim_tensors_promote_by_category():
    cases = [("int32", [1, 2], "int64", 5), ("float16", [1.5], "float64", 2.0), ("uint8", [3], "int64", -1),
             ("int8", [3], "float32", 0.5), ("bool", [True], "int64", 2)]
    for d1, v1, d2, v2 in cases:
        ours = tessera.tensor(v1, dtype=getattr(tessera, d1)) + tessera.tensor(v2, dtype=getattr(tessera, d2))
        theirs = torch.tensor(v1, dtype=getattr(torch, d1)) + torch.tensor(v2, dtype=getattr(torch, d2))
        _compare(ours, theirs, "%s%s + 0-dim %s" % (d1, v1, d2))


def test_matmul_and_reductions_agree():
    rng = np.random.default_rng(3)
    for shape_a, shape_b in [((3, 4), (4, 2)), ((4,), (4, 5)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2))]:
        a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
        for name in ("float32", "float64"):
            ours = tessera.tensor(a, dtype=getattr(tessera, name)) @ tessera.tensor(b, dtype=getattr(tessera, name))
            theirs = torch.tensor(a, dtype=getattr(torch, name)) @ torch.tensor(b, dtype=getattr(torch, name))
            assert tuple(ours.shape) == tuple(theirs.shape)
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5 if name == "float32" else 1e-12,
                                       atol=1e-5 if name == "float32" else 1e-12)
    # out=: into a transposed view, and into an operand (as NumPy: the inputs are read first;
    # PyTorch 1.13 gives zeros for torch.matmul(s, s.T, out=s)).
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    c_o, c_t = tessera.zeros(2, 5, 3).transpose(1, 2), torch.zeros(2, 5, 3).transpose(1, 2)
    assert tessera.matmul(tessera.tensor(a, dtype=tessera.float32), tessera.tensor(b, dtype=tessera.float32),
                          out=c_o) is c_o
    torch.matmul(torch.tensor(a, dtype=torch.float32), torch.tensor(b, dtype=torch.float32), out=c_t)
    np.testing.assert_allclose(c_o.numpy(), c_t.numpy(), rtol=1e-5, atol=1e-5)
    s_np = rng.normal(size=(4, 4))
    s_o = tessera.tensor(s_np)
    tessera.matmul(s_o, s_o.T, out=s_o)
    np.matmul(s_np, s_np.T, out=s_np)
    np.testing.assert_allclose(s_o.numpy(), s_np, rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64 instead"):
        tessera.matmul(tessera.ones(2, 2), tessera.ones(2, 2), out=tessera.zeros(2, 2, dtype=tessera.float64))
    x = rng.normal(size=(3, 4, 5))
    t_o, t_t = tessera.tensor(x), torch.tensor(x)
    for dims, keep in [(None, False), (1, False), ((0, 2), True), (-1, True)]:
        for method in ("sum", "mean"):
            ours = getattr(t_o, method)(dims, keep) if dims is not None else getattr(t_o, method)()
            theirs = getattr(t_t, method)(dims, keep) if dims is not None else getattr(t_t, method)()
            _compare(ours, theirs, "%s(%s, %s)" % (method, dims, keep))
    v_o, i_o = t_o.max(1)
    v_t, i_t = t_t.max(1)
    _compare(v_o, v_t, "max(1).values")
    _compare(i_o, i_t, "max(1).indices")
    _compare(tessera.tensor([[1, 2], [3, 4]]).sum(), torch.tensor([[1, 2], [3, 4]]).sum(), "int sum")
    _compare(tessera.tensor([True, True, False]).sum(), torch.tensor([True, True, False]).sum(), "bool sum")


def test_unary_functions_agree():
    x = np.linspace(-3, 3, 13)
    for name in ("relu", "sigmoid", "exp", "tanh", "abs", "neg"):
        for dt in ("float32", "float64"):
            ours = getattr(tessera, name)(tessera.tensor(x, dtype=getattr(tessera, dt)))
            theirs = getattr(torch, name)(torch.tensor(x, dtype=getattr(torch, dt)))
            _compare(ours, theirs, name + " " + dt)
    ints_o, ints_t = tessera.tensor([1, 2, 3]), torch.tensor([1, 2, 3])
    _compare(tessera.exp(ints_o), torch.exp(ints_t), "exp(int64) is float32")
    _compare(tessera.where(ints_o > 1, ints_o, 0.5), torch.where(ints_t > 1, ints_t, 0.5), "where with a float")


@pytest.mark.parametrize("name", DTYPES)
def test_max_min_with_indices_agree(name):
    rng = random.Random(name)
    values = _values(rng, [3, 5], name)
    if name in ("int8", "int16", "int32", "int64"):
        values[0, 0] = -128 if name == "int8" else -1000  # the type's edge must not overflow
    ours, theirs = _make(tessera, values, name, False), _make(torch, values, name, False)
    for dim in (0, 1, -1):
        for method in ("max", "min"):
            v_o, i_o = getattr(ours, method)(dim)
            v_t, i_t = getattr(theirs, method)(dim)
            _compare(v_o, v_t, "%s %s(%d).values" % (name, method, dim))
            _compare(i_o, i_t, "%s %s(%d).indices" % (name, method, dim))
