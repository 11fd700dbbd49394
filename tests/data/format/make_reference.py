#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes cases.json and close_cases.json beside this script: tensors with the
repr and the torch.testing.assert_close messages that PyTorch 1.13 gives them.

Run with Debian's /usr/bin/python3 (it has torch 1.13). The output is
committed; the C++ tests read it and never need torch. Element values are
stored as the raw little-endian bytes of the tensor, in hex, so nothing is
lost in a decimal round trip.
"""
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}
NAME_OF = {v: k for k, v in DTYPES.items()}

DEFAULT_OPTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=-1)


def raw_hex(t):
    t = t.contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        words = t.view(torch.int16).reshape(-1).tolist()
        return "".join((w & 0xFFFF).to_bytes(2, "little").hex() for w in words)
    if t.dtype == torch.bool:
        return "".join("01" if v else "00" for v in t.reshape(-1).tolist())
    return t.numpy().tobytes().hex()


def set_opts(o):
    sci = {-1: None, 0: False, 1: True}[o["sci_mode"]]
    torch.set_printoptions(precision=o["precision"], threshold=o["threshold"], edgeitems=o["edgeitems"],
                           linewidth=o["linewidth"], sci_mode=sci)


def repr_on_device(t, device):
    """repr(t) as if t lived on `device` (no such device here): torch's own
    tensor-string and suffix functions, with the device suffix added the way
    _str_intern adds it for a non-default device."""
    suffixes = ["device='" + device + "'"]
    indent = len("tensor(")
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t.shape)))
        if t.dtype != torch.get_default_dtype():
            suffixes.append("dtype=" + str(t.dtype))
        body = "[]"
    else:
        if t.dtype not in (torch.get_default_dtype(), torch.int64, torch.bool):
            suffixes.append("dtype=" + str(t.dtype))
        body = torch._tensor_str._tensor_str(t, indent)
    return torch._tensor_str._add_suffixes("tensor(" + body, suffixes, indent, False)


cases = []


def case(name, t, device="cpu", **opts):
    o = dict(DEFAULT_OPTS)
    o.update(opts)
    set_opts(o)
    try:
        text = repr(t) if device == "cpu" else repr_on_device(t, device)
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
    cases.append({
        "name": name,
        "dtype": NAME_OF[t.dtype],
        "shape": list(t.shape),
        "hex": raw_hex(t),
        "options": o,
        "device": device,
        "repr": text,
    })


def main():
    g = torch.Generator().manual_seed(1234)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(tuple(shape), generator=g).to(dtype)

    nan, inf = float("nan"), float("inf")

    # The lesson's cases.
    case("lesson one third", torch.tensor(1 / 3))
    case("lesson point one", torch.tensor(0.1))
    case("lesson arange view", torch.arange(12).view(3, 4))
    case("lesson float vector", torch.tensor([1.0, 2.0, 3.0]))
    case("lesson int vector", torch.tensor([1, 2]))
    case("lesson arange float64 view", torch.arange(6.0, dtype=torch.float64).reshape(2, 3))

    # Every dtype in several ranks.
    for dname, dt in DTYPES.items():
        if dt == torch.bool:
            vals = [torch.tensor(True), torch.rand(5, generator=g) > 0.5, torch.rand(3, 4, generator=g) > 0.5,
                    torch.rand(2, 3, 4, generator=g) > 0.5, torch.rand(2, 2, 2, 3, generator=g) > 0.5]
        elif dt.is_floating_point:
            vals = [randn(dtype=dt), randn(5, dtype=dt), randn(3, 4, dtype=dt), randn(2, 3, 4, dtype=dt),
                    randn(2, 2, 2, 3, dtype=dt)]
        else:
            info = torch.iinfo(dt)
            lo, hi = max(info.min, -1000), min(info.max, 1000)
            vals = [torch.randint(lo, hi, (), generator=g, dtype=dt), torch.randint(lo, hi, (5,), generator=g, dtype=dt),
                    torch.randint(lo, hi, (3, 4), generator=g, dtype=dt),
                    torch.randint(lo, hi, (2, 3, 4), generator=g, dtype=dt),
                    torch.randint(lo, hi, (2, 2, 2, 3), generator=g, dtype=dt)]
        for t in vals:
            case(f"{dname} rank {t.dim()}", t)
        for shape in [(0,), (2, 0, 3), (0, 3), (3, 0)]:
            case(f"{dname} empty {shape}", torch.zeros(shape, dtype=dt))

    # Integer extremes and widths.
    for dname in ["int8", "uint8", "int16", "int32", "int64"]:
        dt = DTYPES[dname]
        info = torch.iinfo(dt)
        case(f"{dname} extremes", torch.tensor([info.min, 0, info.max, 1, -1 if info.min < 0 else 2], dtype=dt))
    case("int64 huge", torch.tensor([[-2**63, 2**62], [7, -8]]))
    case("int64 single digit widths", torch.tensor([[1, -1], [10, 100]]))

    # Floats holding integers ("1." style) and their sci-mode switch.
    case("float ints", torch.tensor([1.0, -2.0, 30.0, 400.0]))
    case("float ints zero", torch.tensor([0.0, 3.0]))
    case("float all zero", torch.zeros(2, 3))
    case("float ints ratio", torch.tensor([1.0, 2000.0]))
    case("float ints big", torch.tensor([1.0e9, 3.0e9]))
    case("float ints exactly 1e8", torch.tensor([1.0e8, 5.0e7]))
    case("float ints 1000 ratio edge", torch.tensor([1.0, 1000.0]))
    case("float64 ints huge", torch.tensor([1.0e20, -3.0], dtype=torch.float64))
    case("float ints negative zero", torch.tensor([-0.0, 1.0, -3.0]))
    case("float negative zero fraction", torch.tensor([-0.0, 1.5]))
    case("float negative zero scalar", torch.tensor(-0.0))
    case("float negative zero only", torch.tensor([-0.0, 0.0]))

    # Sci mode triggers.
    case("sci tiny", torch.tensor([1e-5, 0.5]))
    case("sci tiny alone", torch.tensor([3e-5]))
    case("sci big", torch.tensor([1.5e8, 2.5]))
    case("sci huge", torch.tensor([1.5e10, 2.5]))
    case("sci ratio", torch.tensor([0.001, 1.5]))
    case("sci ratio edge", torch.tensor([0.0015, 1.5]))
    case("sci ratio just over", torch.tensor([0.00149, 1.5]))
    case("sci min 1e-4 edge", torch.tensor([1e-4, 2e-4]))
    case("sci negative", torch.tensor([-1.2345e-6, 3.0, -7.5]))
    case("sci float64 extremes", torch.tensor([1e-300, 1e300, -2.5], dtype=torch.float64))
    case("sci float64 tiny", torch.tensor([[4.9e-324, 1.0], [2.0, 3.0]], dtype=torch.float64))
    case("sci 2d", randn(3, 3) * torch.tensor([1e-6, 1.0, 1e6]))
    case("sci scalar", torch.tensor(12345678912.0))
    case("sci scalar tiny", torch.tensor(1.5e-7))

    # nan and inf.
    case("nan inf mixed", torch.tensor([nan, inf, -inf, 1.5]))
    case("nan inf ints", torch.tensor([nan, inf, -inf, 1.0, 100.0]))
    case("nan only", torch.tensor([nan, nan]))
    case("inf only", torch.tensor([inf, -inf]))
    case("nan scalar", torch.tensor(nan))
    case("inf scalar", torch.tensor(-inf))
    case("nan with sci", torch.tensor([nan, 1e-6, 1.0]))
    case("nan 2d", torch.tensor([[nan, 2.25], [-inf, 0.0]]))
    case("nan float64", torch.tensor([nan, 0.5, -0.25], dtype=torch.float64))
    case("nan float16", torch.tensor([nan, inf, 0.5], dtype=torch.float16))
    case("nan bfloat16", torch.tensor([nan, -inf, 2.0], dtype=torch.bfloat16))

    # float16 / bfloat16 specific values.
    case("float16 max", torch.tensor([65504.0, -65504.0, 1.0], dtype=torch.float16))
    case("float16 subnormal", torch.tensor([6e-8, 1e-5, 1.0], dtype=torch.float16))
    case("float16 third", torch.tensor([1 / 3, 2 / 3, 0.1], dtype=torch.float16))
    case("bfloat16 third", torch.tensor([1 / 3, 2 / 3, 0.1], dtype=torch.bfloat16))
    case("bfloat16 big", torch.tensor([3.0e38, 1.0, 1e-38], dtype=torch.bfloat16))
    case("float16 ints", torch.tensor([[1.0, 2.0], [2048.0, 3.0]], dtype=torch.float16))

    # Rounding at the print precision.
    case("rounding", torch.tensor([0.12345, 0.99995, 1.00005, 2.5e-4 + 1]))
    case("rounding float64 ties", torch.tensor([0.125, 0.375, 1.03125], dtype=torch.float64), precision=2)
    case("rounding float64 ties 0", torch.tensor([0.5, 1.5, 2.25], dtype=torch.float64), precision=0)

    # Precision settings.
    for p in [2, 4, 8]:
        case(f"precision {p} vector", randn(6), precision=p)
        case(f"precision {p} scalar", torch.tensor(1 / 3), precision=p)
        case(f"precision {p} sci", torch.tensor([1e-7, 2.0, 3.5]), precision=p)
        case(f"precision {p} float64 matrix", randn(3, 3, dtype=torch.float64) * 10, precision=p)
    case("precision 2 ints", torch.tensor([1.0, 2.0]), precision=2)
    case("precision 1 third", torch.tensor([1 / 3, 100.5]), precision=1)

    # sci_mode forced.
    case("sci forced on", torch.tensor([1.5, 2.25]), sci_mode=1)
    case("sci forced on ints", torch.tensor([1.0, 2.0]), sci_mode=1)
    case("sci forced off", torch.tensor([1e-6, 1.0]), sci_mode=0)
    case("sci forced off big", torch.tensor([1e10, 1.5]), sci_mode=0)
    case("sci forced on all zero", torch.zeros(3), sci_mode=1)
    case("sci forced on nan only", torch.tensor([nan, 1.0]), sci_mode=1)
    case("sci forced off ints big", torch.tensor([1e9, 1.0]), sci_mode=0)

    # Line wrapping.
    case("wrap 1d float", randn(40))
    case("wrap 1d int", torch.arange(100))
    case("wrap 2d wide", randn(3, 20))
    case("wrap 3d wide", randn(2, 2, 15))
    case("wrap narrow linewidth", randn(12), linewidth=30)
    case("wrap tiny linewidth", torch.arange(6), linewidth=5)
    case("wrap linewidth 120", randn(30), linewidth=120)
    case("wrap bool", torch.rand(30, generator=g) > 0.5)
    case("wrap sci", randn(20) * 1e-6)
    case("wrap float64 dtype suffix", randn(17, dtype=torch.float64))
    case("suffix wraps", torch.arange(14, dtype=torch.int32) * 100000)
    case("suffix wraps 2d", (torch.arange(30, dtype=torch.int16).view(3, 10) - 15) * 1000)
    case("suffix exactly fits", torch.tensor([1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5], dtype=torch.float64),
         linewidth=78)

    # Summarisation.
    case("summarize default 1d", torch.arange(1001.0))
    case("summarize default 2d", randn(40, 30))
    case("summarize int 1d", torch.arange(2000, dtype=torch.int32))
    case("summarize threshold 5", torch.arange(10), threshold=5)
    case("summarize threshold 5 edge 2", torch.arange(10.0), threshold=5, edgeitems=2)
    case("summarize edgeitems 0 1d", torch.arange(10), threshold=5, edgeitems=0)
    case("summarize 2d small threshold", torch.arange(64.0).view(8, 8), threshold=20)
    case("summarize 2d rows only", torch.arange(40).view(10, 4), threshold=20)
    case("summarize 2d cols only", torch.arange(40).view(4, 10), threshold=20)
    case("summarize 3d", randn(8, 8, 8), threshold=100)
    case("summarize 4d", torch.arange(4 * 7 * 3 * 8).view(4, 7, 3, 8), threshold=100, edgeitems=2)
    case("summarize formatter sees edges", torch.cat([torch.tensor([1.5]), torch.full((20,), 1e-6),
                                                     torch.tensor([2.5])]), threshold=10)
    case("summarize formatter ignores middle nan", torch.cat([torch.ones(3), torch.tensor([1e-8, 0.5]),
                                                            torch.ones(3)]), threshold=5)
    case("summarize bool", torch.rand(12, 12, generator=g) > 0.5, threshold=50)
    case("summarize float16", randn(30, dtype=torch.float16), threshold=10)
    case("summarize exactly threshold", torch.arange(10), threshold=10)
    case("summarize wraps", randn(4, 60), threshold=100, edgeitems=12)

    # Shapes with ones and higher ranks.
    case("shape 1", torch.tensor([7.25]))
    case("shape 1x1", torch.tensor([[7]]))
    case("shape 1x3x1", torch.arange(3.0).view(1, 3, 1))
    case("shape 2x1x2x1x2", torch.arange(8).view(2, 1, 2, 1, 2))
    case("shape 3x1", torch.tensor([[0.5], [-1.5], [2.0]]))
    case("4d float", randn(2, 3, 2, 2))
    case("5d int", torch.arange(32, dtype=torch.int8).view(2, 2, 2, 2, 2))
    case("uint8 image patch", torch.randint(0, 256, (2, 3, 4), generator=g, dtype=torch.uint8))

    # Mixed magnitudes and widths.
    case("negative alignment", torch.tensor([[-1.5, 22.25], [333.125, -4444.0625]]))
    case("ints negative alignment", torch.tensor([[-1, 22], [333, -4444]]))
    case("float64 lesson", torch.tensor([100.0, 0.0, -1.0], dtype=torch.float64))
    case("float64 0.1", torch.tensor(0.1, dtype=torch.float64))
    case("float32 items", torch.tensor([0.1, 0.2, 0.3]))
    case("randn scaled 1e3", randn(5) * 1e3)
    case("randn scaled 1e-3", randn(5) * 1e-3)
    case("large float not sci", torch.tensor([12345.678, 99999.5]))
    case("ratio 999", torch.tensor([0.5, 499.5]))

    # Non-cpu devices: torch's own string functions with a device suffix.
    case("device cuda float", torch.tensor([1.0, 2.0]), device="cuda:0")
    case("device cuda int32", torch.tensor([1, 2], dtype=torch.int32), device="cuda:0")
    case("device arena float64 wraps", randn(12, dtype=torch.float64), device="arena:0")
    case("device cuda empty", torch.zeros(2, 0), device="cuda:1")
    case("device cuda scalar", torch.tensor(0.5), device="cuda:0")

    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "format cases")

    write_close_cases(g)


def close_message(actual, expected, **kw):
    try:
        torch.testing.assert_close(actual, expected, **kw)
        return ""
    except AssertionError as e:
        return str(e)


def write_close_cases(g):
    nan, inf = float("nan"), float("inf")
    out = []

    def close_case(name, a, b, rtol=None, atol=None, equal_nan=False):
        assert a.shape == b.shape and a.dtype == b.dtype
        kw = {"equal_nan": equal_nan}
        if rtol is not None:
            kw.update(rtol=rtol, atol=atol)
        out.append({
            "name": name,
            "dtype": NAME_OF[a.dtype],
            "shape": list(a.shape),
            "actual": raw_hex(a),
            "expected": raw_hex(b),
            "rtol": rtol if rtol is not None else -1.0,
            "atol": atol if atol is not None else -1.0,
            "equal_nan": equal_nan,
            "message": close_message(a, b, **kw),
        })

    def meta_case(name, a, b, device_a="cpu", device_b="cpu"):
        # The device check cannot run here (cpu only): its wording is the same
        # f-string as shape and dtype, with str(torch.device).
        if device_a != device_b and a.shape == b.shape:
            msg = f"The values for attribute 'device' do not match: {device_a} != {device_b}."
        else:
            msg = close_message(a, b)
        out.append({
            "name": name, "metadata": True,
            "dtype_a": NAME_OF[a.dtype], "shape_a": list(a.shape), "device_a": device_a,
            "dtype_b": NAME_OF[b.dtype], "shape_b": list(b.shape), "device_b": device_b,
            "message": msg,
        })

    t = torch.tensor
    close_case("brief example", t([[1.0, 2.0], [2.0, 4.0]]), t([[1.0, 2.0], [2.5, 4.0]]))
    close_case("docstring example", t([1.0, 4.0, 5.0]), t([1.0, 2.0, 3.0]))
    close_case("close float32", t([1.0, 2.0]), t([1.0, 2.0 + 1e-6]))
    close_case("close float32 at atol", t([0.0]), t([1e-5]))
    close_case("float32 rounding gap", t([0.1, 0.2, 0.3]), t([0.1, 0.2, 0.3]) + 1e-4)
    close_case("float64 tiny gap", t([1.0, 2.0], dtype=torch.float64), t([1.0, 2.0 + 1e-6], dtype=torch.float64))
    close_case("float64 close", t([1.0, 2.0], dtype=torch.float64), t([1.0, 2.0 + 1e-8], dtype=torch.float64))
    close_case("float16", t([1.0, 2.0, 3.0], dtype=torch.float16), t([1.0, 2.01, 3.0], dtype=torch.float16))
    close_case("float16 close", t([1.0, 2.0], dtype=torch.float16), t([1.0, 2.001], dtype=torch.float16))
    close_case("bfloat16", t([1.0, 2.0, 3.0], dtype=torch.bfloat16), t([1.0, 2.1, 3.0], dtype=torch.bfloat16))
    close_case("bfloat16 close", t([1.0, 256.0], dtype=torch.bfloat16), t([1.0, 257.0], dtype=torch.bfloat16))
    close_case("int64 equal", t([1, 2, 3]), t([1, 2, 3]))
    close_case("int64 not equal", t([1, 2, 3]), t([1, 5, 0]))
    close_case("int32 2d", t([[1, 2], [3, 4]], dtype=torch.int32), t([[1, 2], [3, 7]], dtype=torch.int32))
    close_case("int8 wide", t([-128, 127], dtype=torch.int8), t([127, -128], dtype=torch.int8))
    close_case("uint8", t([0, 255, 3], dtype=torch.uint8), t([255, 0, 3], dtype=torch.uint8))
    close_case("int16 third", t([1, 4, 9], dtype=torch.int16), t([3, 4, 9], dtype=torch.int16))
    close_case("int64 rel float32", t([10, 20, 30]), t([7, 21, 31]))
    close_case("int64 tolerance", t([100, 200]), t([101, 230]), rtol=0.01, atol=0.5)
    close_case("int64 tolerance close", t([100, 200]), t([101, 201]), rtol=0.01, atol=0.5)
    close_case("bool", t([True, False, True]), t([True, True, False]))
    close_case("bool equal", t([True, False]), t([True, False]))
    close_case("scalar float32", t(1.0), t(4.0))
    close_case("scalar float64", t(0.1, dtype=torch.float64), t(0.3, dtype=torch.float64))
    close_case("scalar int", t(1), t(4))
    close_case("scalar int zero expected", t(3), t(0))
    close_case("scalar float zero expected", t(3.0), t(0.0))
    close_case("scalar nan", t(nan), t(1.0))
    close_case("scalar nan equal_nan", t(nan), t(nan), equal_nan=True)
    close_case("scalar bool", t(True), t(False))
    close_case("nan not equal", t([1.0, nan]), t([1.0, nan]))
    close_case("nan equal_nan", t([1.0, nan]), t([1.0, nan]), equal_nan=True)
    close_case("nan vs number", t([nan, 1.0, 5.0]), t([1.0, 1.0, 1.0]))
    close_case("inf equal", t([inf, -inf]), t([inf, -inf]))
    close_case("inf mismatch", t([inf, 1.0]), t([-inf, 1.0]))
    close_case("inf vs number", t([1.0, inf]), t([1.0, 2.0]))
    close_case("zero expected", t([0.0, 1.0]), t([1.0, 0.0]))
    close_case("zero expected alone", t([1.0, 2.0]), t([1.0, 0.0]))
    close_case("negative zero", t([-0.0]), t([0.0]))
    close_case("relative beats absolute", t([100.0, 1.0]), t([101.0, 0.5]))
    close_case("ties first index", t([1.0, 3.0, 3.0]), t([0.0, 0.0, 0.0]))
    close_case("explicit tolerance", t([1.0, 2.0]), t([1.1, 2.0]), rtol=0.0, atol=0.05)
    close_case("explicit tolerance close", t([1.0, 2.0]), t([1.1, 2.0]), rtol=0.0, atol=0.2)
    close_case("explicit zero tolerance float", t([1.0, 2.0]), t([1.0, 2.0000002]), rtol=0.0, atol=0.0)
    close_case("rtol only", t([10.0, 20.0]), t([10.5, 20.0]), rtol=0.01, atol=0.0)
    close_case("3d index", torch.zeros(2, 3, 4), torch.zeros(2, 3, 4).index_put_((t([1]), t([2]), t([3])), t(0.5)))
    close_case("4d index", torch.zeros(2, 1, 2, 3, dtype=torch.float64),
               torch.zeros(2, 1, 2, 3, dtype=torch.float64).index_put_((t([1]), t([0]), t([1]), t([2])),
                                                                    t(2.0, dtype=torch.float64)))
    a = torch.randn(50, 40, generator=g)
    close_case("random many", a, a + torch.randn(50, 40, generator=g) * 1e-5)
    close_case("random many float64", a.double(), a.double() + torch.randn(50, 40, generator=g).double() * 1e-7)
    close_case("percent rounding", torch.zeros(3), t([1.0, 0.0, 0.0]))
    close_case("percent two thirds", torch.zeros(3), t([1.0, 1.0, 0.0]))
    close_case("percent tiny", torch.zeros(2000), torch.cat([t([1.0]), torch.zeros(1999)]))
    close_case("big diffs repr", t([1e20, 1.0]), t([-1e20, 1.0]), rtol=0.0, atol=0.0)
    close_case("tiny diffs repr", t([1e-30, 1.0], dtype=torch.float64), t([3e-30, 1.0], dtype=torch.float64),
               rtol=0.0, atol=1e-31)
    close_case("float64 sixteen digits", t([1.0, 12345678.9], dtype=torch.float64),
               t([1.0, 12345678.1], dtype=torch.float64))
    close_case("empty", torch.zeros(0, 3), torch.zeros(0, 3))

    meta_case("shape 1d", torch.zeros(2), torch.zeros(3))
    meta_case("shape 2d", torch.zeros(2, 3), torch.zeros(3, 2))
    meta_case("shape scalar", torch.zeros(()), torch.zeros(1))
    meta_case("dtype", torch.zeros(2), torch.zeros(2, dtype=torch.float64))
    meta_case("dtype int", torch.zeros(2, dtype=torch.int32), torch.zeros(2, dtype=torch.int64))
    meta_case("dtype bool half", torch.zeros(2, dtype=torch.bool), torch.zeros(2, dtype=torch.float16))
    meta_case("dtype bfloat16 uint8", torch.zeros(2, dtype=torch.bfloat16), torch.zeros(2, dtype=torch.uint8))
    meta_case("dtype int8 int16", torch.zeros(2, dtype=torch.int8), torch.zeros(2, dtype=torch.int16))
    meta_case("shape before dtype", torch.zeros(2), torch.zeros(3, dtype=torch.float64))
    meta_case("device", torch.zeros(2), torch.zeros(2), "cpu", "cuda:0")
    meta_case("device before dtype", torch.zeros(2), torch.zeros(2, dtype=torch.int64), "cpu", "cuda:0")
    meta_case("same", torch.zeros(2, 2), torch.zeros(2, 2))

    with open(os.path.join(HERE, "close_cases.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(len(out), "close cases")


if __name__ == "__main__":
    main()
