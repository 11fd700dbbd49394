# SPDX-License-Identifier: Apache-2.0
"""tessera.fft (torch.fft's functions) and tessera.array_api's fft extension
against numpy.fft (NumPy 1.24's pocketfft, in float64): every function, in
float32/complex64 and float64/complex128, for powers of two, primes,
products of small primes and n = 1; every norm; n and s padding and
trimming; dims and axes, negative ones included; 0-d and empty inputs as
NumPy and torch treat them; strided and transposed inputs; round trips.

The whole file runs again on the emulated CUDA device (tests/cuda_emu) in a
subprocess: $TESSERA_FFT_TEST_DEVICE names the device the tensors live on."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera as ts
import tessera.array_api as xp
from devices import arena_config

DEVICE = os.environ.get("TESSERA_FFT_TEST_DEVICE", "cpu")
SIZES = [1, 2, 7, 8, 16, 97, 257, 360, 1000, 1009, 1024]
NORMS = [None, "backward", "ortho", "forward"]
REAL = {np.float32: np.float32, np.float64: np.float64}
COMPLEX_OF = {np.float32: np.complex64, np.float64: np.complex128}
RNG = np.random.default_rng(36)


def _tensor(a):
    return ts.from_numpy(np.ascontiguousarray(a)).to(DEVICE)


def _numpy(t):
    return t.cpu().numpy()


def _tol(dtype):
    return 3e-6 if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) else 1e-13


def _check(got, want, dtype):
    """got (a Tensor) is want (NumPy's float64 result) in `dtype`'s precision,
    with that dtype, to a relative 2-norm error of a few ulps times log n."""
    g = _numpy(got)
    assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if want.size == 0:
        return
    scale = max(np.linalg.norm(want.ravel()), 1e-300)
    n = max(want.shape) if want.ndim else 1
    assert np.linalg.norm((g.astype(np.complex128) - want).ravel()) / scale <= _tol(dtype) * (1 + np.log2(n)), \
        (g.ravel()[:4], want.ravel()[:4])


def _real(shape, dtype):
    return RNG.standard_normal(shape).astype(dtype)


def _complex(shape, dtype):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(COMPLEX_OF[dtype])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", NORMS)
def test_one_dimensional_transforms_match_numpy(n, dtype, norm):
    c, r = _complex((3, n), dtype), _real((3, n), dtype)
    cdt = COMPLEX_OF[dtype]
    _check(ts.fft.fft(_tensor(c), norm=norm), np.fft.fft(c.astype(np.complex128), norm=norm), cdt)
    _check(ts.fft.ifft(_tensor(c), norm=norm), np.fft.ifft(c.astype(np.complex128), norm=norm), cdt)
    _check(ts.fft.rfft(_tensor(r), norm=norm), np.fft.rfft(r.astype(np.float64), norm=norm), cdt)
    _check(ts.fft.ihfft(_tensor(r), norm=norm), np.fft.ihfft(r.astype(np.float64), norm=norm), cdt)
    half = c[:, :n // 2 + 1]
    for m in {n, 2 * (half.shape[1] - 1) or 1, n + 1}:
        _check(ts.fft.irfft(_tensor(half), n=m, norm=norm), np.fft.irfft(half.astype(np.complex128), n=m, norm=norm),
               dtype)
        _check(ts.fft.hfft(_tensor(half), n=m, norm=norm), np.fft.hfft(half.astype(np.complex128), n=m, norm=norm),
               dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 12, 40])
def test_n_pads_with_zeros_and_trims(dtype, n):
    c, r = _complex((2, 17), dtype), _real((2, 17), dtype)
    cdt = COMPLEX_OF[dtype]
    _check(ts.fft.fft(_tensor(c), n=n), np.fft.fft(c.astype(np.complex128), n=n), cdt)
    _check(ts.fft.ifft(_tensor(c), n=n, dim=0), np.fft.ifft(c.astype(np.complex128), n=n, axis=0), cdt)
    _check(ts.fft.rfft(_tensor(r), n=n), np.fft.rfft(r.astype(np.float64), n=n), cdt)
    _check(ts.fft.irfft(_tensor(c), n=n), np.fft.irfft(c.astype(np.complex128), n=n), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", NORMS)
def test_multidimensional_transforms_match_numpy(dtype, norm):
    c, r = _complex((4, 6, 9), dtype), _real((4, 6, 9), dtype)
    c128, r64 = c.astype(np.complex128), r.astype(np.float64)
    cdt = COMPLEX_OF[dtype]
    _check(ts.fft.fftn(_tensor(c), norm=norm), np.fft.fftn(c128, norm=norm), cdt)
    _check(ts.fft.ifftn(_tensor(c), norm=norm), np.fft.ifftn(c128, norm=norm), cdt)
    _check(ts.fft.fft2(_tensor(c), norm=norm), np.fft.fft2(c128, norm=norm), cdt)
    _check(ts.fft.ifft2(_tensor(c), norm=norm), np.fft.ifft2(c128, norm=norm), cdt)
    _check(ts.fft.rfftn(_tensor(r), norm=norm), np.fft.rfftn(r64, norm=norm), cdt)
    _check(ts.fft.rfft2(_tensor(r), norm=norm), np.fft.rfft2(r64, norm=norm), cdt)
    _check(ts.fft.irfftn(_tensor(c), norm=norm), np.fft.irfftn(c128, norm=norm), dtype)
    _check(ts.fft.irfft2(_tensor(c), norm=norm), np.fft.irfft2(c128, norm=norm), dtype)
    # dims (negative, out of order) and s (padding one, trimming another; -1 the input's)
    for s, dim in [((5, 8), (0, -1)), ((3, 12), (-1, -3)), ((7,), (1,)), ((4, -1), (-2, 0))]:
        axes_np = [d % 3 for d in dim]
        s_np = [v if v != -1 else c.shape[a] for v, a in zip(s, axes_np)]
        _check(ts.fft.fftn(_tensor(c), s=s, dim=dim, norm=norm), np.fft.fftn(c128, s=s_np, axes=axes_np, norm=norm),
               cdt)
        _check(ts.fft.rfftn(_tensor(r), s=s, dim=dim, norm=norm),
               np.fft.rfftn(r64, s=s_np, axes=axes_np, norm=norm), cdt)
        _check(ts.fft.irfftn(_tensor(c), s=s_np, dim=dim, norm=norm),
               np.fft.irfftn(c128, s=s_np, axes=axes_np, norm=norm), dtype)
    # s alone: the last len(s) dims
    _check(ts.fft.fftn(_tensor(c), s=(5, 10)), np.fft.fftn(c128, s=(5, 10)), cdt)


@pytest.mark.parametrize("n", [1 << 16, 3 << 15, 65537, 1 << 18])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_single_lines(n, dtype):
    """One line alone: the CPU's four-step split over its threads (and
    Bluestein's algorithm over split FFTs for the prime 65537)."""
    if n == 65537 and DEVICE != "cpu":
        pytest.skip("the emulated cuFFT is KissFFT alone: O(n^2) for a large prime")
    c, r = _complex(n, dtype), _real(n, dtype)
    _check(ts.fft.fft(_tensor(c)), np.fft.fft(c.astype(np.complex128)), COMPLEX_OF[dtype])
    _check(ts.fft.ifft(_tensor(c)), np.fft.ifft(c.astype(np.complex128)), COMPLEX_OF[dtype])
    _check(ts.fft.rfft(_tensor(r)), np.fft.rfft(r.astype(np.float64)), COMPLEX_OF[dtype])
    half = np.fft.rfft(r.astype(np.float64))
    _check(ts.fft.irfft(_tensor(half.astype(COMPLEX_OF[dtype])), n=n), np.fft.irfft(half, n=n), dtype)
    batch = _complex((3, n), dtype)  # several long lines: each split on its own thread
    _check(ts.fft.fft(_tensor(batch)), np.fft.fft(batch.astype(np.complex128)), COMPLEX_OF[dtype])


def test_strided_and_transposed_inputs():
    base = _complex((8, 12), np.float64)
    t = _tensor(base)
    for view, ref in [(t.T, base.T), (t[::2, 1::3], base[::2, 1::3]), (t[:, 3], base[:, 3])]:
        _check(ts.fft.fft(view), np.fft.fft(ref), np.complex128)
        _check(ts.fft.fft(view, dim=0), np.fft.fft(ref, axis=0), np.complex128)
        _check(ts.fft.fftn(view), np.fft.fftn(ref), np.complex128)
    r = _real((10, 16), np.float32)
    rt = _tensor(r)
    _check(ts.fft.rfft(rt.T), np.fft.rfft(r.T.astype(np.float64)), np.complex64)
    _check(ts.fft.irfft(ts.fft.rfft(rt.T), n=10), r.T.astype(np.float64), np.float32)
    expanded = _tensor(r[0]).expand(3, 16)  # stride 0
    _check(ts.fft.rfft(expanded), np.fft.rfft(np.broadcast_to(r[0], (3, 16)).astype(np.float64)), np.complex64)


@pytest.mark.parametrize("n", [1, 2, 9, 10, 97, 128, 1009])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_trips(n, dtype):
    c, r = _complex((2, n), dtype), _real((2, n), dtype)
    _check(ts.fft.ifft(ts.fft.fft(_tensor(c))), c.astype(np.complex128), COMPLEX_OF[dtype])
    _check(ts.fft.irfft(ts.fft.rfft(_tensor(r)), n=n), r.astype(np.float64), dtype)
    _check(ts.fft.ifftn(ts.fft.fftn(_tensor(c), norm="ortho"), norm="ortho"), c.astype(np.complex128),
           COMPLEX_OF[dtype])


def test_dtypes_promote_as_torch():
    assert ts.fft.fft(_tensor(np.arange(6))).dtype == ts.complex64  # integers: float32 first
    assert ts.fft.fft(_tensor(np.arange(6.0))).dtype == ts.complex128
    assert ts.fft.rfft(_tensor(np.arange(6, dtype=np.int32))).dtype == ts.complex64
    assert ts.fft.fft(_tensor(np.ones(4, dtype=np.float16))).dtype == ts.complex64
    assert ts.fft.irfft(_tensor(np.ones(4, dtype=np.float64))).dtype == ts.float64
    _check(ts.fft.fft(_tensor(np.arange(6))), np.fft.fft(np.arange(6.0)), np.complex64)
    _check(ts.fft.fft(_tensor(np.array([True, False, True]))), np.fft.fft([1.0, 0.0, 1.0]), np.complex64)
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor, but got complex128"):
        ts.fft.rfft(_tensor(_complex(4, np.float64)))


def test_errors_and_empty_inputs_as_numpy_and_torch():
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        ts.fft.fft(ts.tensor(1.0, device=DEVICE))
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        ts.fft.fft(ts.zeros(0, device=DEVICE))
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        ts.fft.fft(ts.zeros(4, device=DEVICE), n=0)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(-2\) specified"):
        ts.fft.irfft(ts.zeros(0, dtype=ts.complex64, device=DEVICE))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        ts.fft.fft(ts.zeros(3, 4, device=DEVICE), dim=2)
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        ts.fft.fftn(ts.zeros(3, 4, device=DEVICE), dim=(0, -2))
    with pytest.raises(RuntimeError, match="When given, dim and shape arguments must have the same length"):
        ts.fft.fftn(ts.zeros(3, 4, device=DEVICE), s=(3,), dim=(0, 1))
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "sideways"'):
        ts.fft.fft(ts.zeros(3, device=DEVICE), norm="sideways")
    # An empty batch dim is no error: NumPy returns an empty result too.
    e = np.zeros((0, 8))
    _check(ts.fft.fft(_tensor(e)), np.fft.fft(e), np.complex128)
    _check(ts.fft.rfft(_tensor(e)), np.fft.rfft(e), np.complex128)
    _check(ts.fft.irfft(_tensor(e.astype(np.complex128))), np.fft.irfft(e), np.float64)


def test_gradients_flow_through_the_transforms():
    # Note [The adjoint of a Fourier transform]: the gradient of a real loss of
    # rfft(x) is the adjoint applied to the loss's gradient; for sum(Re X * w)
    # that is Re(conj(F)^T w), F the first n // 2 + 1 rows of the DFT matrix.
    # test_autograd_complex_vs_torch.py compares every transform with torch.
    n = 7
    x = ts.tensor(RNG.standard_normal(n), dtype=ts.float64, requires_grad=True, device=DEVICE)
    w = RNG.standard_normal(n // 2 + 1)
    y = ts.fft.rfft(x, norm="ortho")
    assert y.grad_fn.name() == "FftR2CBackward0"
    (y.real * ts.tensor(w, dtype=ts.float64, device=DEVICE)).sum().backward()
    F = np.exp(-2j * np.pi * np.outer(np.arange(n // 2 + 1), np.arange(n)) / n) / np.sqrt(n)
    np.testing.assert_allclose(x.grad.cpu().numpy(), (F.T @ w).real, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 11])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies_and_shifts(n, d):
    np.testing.assert_allclose(ts.fft.fftfreq(n, d, dtype=ts.float64, device=DEVICE).cpu().numpy(),
                               np.fft.fftfreq(n, d), rtol=1e-15)
    np.testing.assert_allclose(ts.fft.rfftfreq(n, d, dtype=ts.float64, device=DEVICE).cpu().numpy(),
                               np.fft.rfftfreq(n, d), rtol=1e-15)
    assert ts.fft.fftfreq(n).dtype == ts.float32
    a = RNG.standard_normal((n, n + 3))
    for axes in [None, 0, (1,), (0, -1)]:
        dim = axes
        np.testing.assert_array_equal(_numpy(ts.fft.fftshift(_tensor(a), dim=dim)), np.fft.fftshift(a, axes=axes))
        np.testing.assert_array_equal(_numpy(ts.fft.ifftshift(_tensor(a), dim=dim)), np.fft.ifftshift(a, axes=axes))


# ---- the Array API's fft extension (xp.fft) ------------------------------------------------------


def _array(a):
    return xp.asarray(_tensor(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_array_api_fft_matches_numpy(dtype, norm):
    c, r = _complex((5, 12), dtype), _real((5, 12), dtype)
    c128, r64, cdt = c.astype(np.complex128), r.astype(np.float64), COMPLEX_OF[dtype]
    assert hasattr(xp, "fft") and len(xp.fft.__all__) == 14
    _check(xp.fft.fft(_array(c), norm=norm)._t, np.fft.fft(c128, norm=norm), cdt)
    _check(xp.fft.ifft(_array(c), n=7, axis=0, norm=norm)._t, np.fft.ifft(c128, n=7, axis=0, norm=norm), cdt)
    _check(xp.fft.fftn(_array(c), s=(3, 16), axes=(-1, 0), norm=norm)._t,
           np.fft.fftn(c128, s=(3, 16), axes=(1, 0), norm=norm), cdt)
    _check(xp.fft.ifftn(_array(c), norm=norm)._t, np.fft.ifftn(c128, norm=norm), cdt)
    _check(xp.fft.rfft(_array(r), norm=norm)._t, np.fft.rfft(r64, norm=norm), cdt)
    _check(xp.fft.irfft(_array(c), n=9, norm=norm)._t, np.fft.irfft(c128, n=9, norm=norm), dtype)
    _check(xp.fft.rfftn(_array(r), norm=norm)._t, np.fft.rfftn(r64, norm=norm), cdt)
    _check(xp.fft.irfftn(_array(c), s=(5, 10), norm=norm)._t, np.fft.irfftn(c128, s=(5, 10), norm=norm), dtype)
    _check(xp.fft.hfft(_array(c), norm=norm)._t, np.fft.hfft(c128, norm=norm), dtype)
    _check(xp.fft.ihfft(_array(r), norm=norm)._t, np.fft.ihfft(r64, norm=norm), cdt)


def test_array_api_fft_dtypes_and_errors():
    r, c = _array(_real(4, np.float64)), _array(_complex(4, np.float32))
    with pytest.raises(TypeError):
        xp.fft.fft(r)  # the standard gives fft complex input
    with pytest.raises(TypeError):
        xp.fft.rfft(c)
    with pytest.raises(TypeError):
        xp.fft.fft(xp.asarray([1, 2, 3]))
    with pytest.raises(ValueError):
        xp.fft.fft(c, n=0)
    with pytest.raises(ValueError):
        xp.fft.fft(c, norm="sideways")
    with pytest.raises(ValueError):
        xp.fft.fftn(c, s=(2, 2), axes=(0,))
    with pytest.raises(IndexError):
        xp.fft.fft(c, axis=1)
    f = xp.fft.fftfreq(8, d=0.5, device=c.device)
    assert f.dtype == xp.float64 and str(f.device) == str(c.device)
    np.testing.assert_allclose(np.asarray(f._t.cpu().numpy()), np.fft.fftfreq(8, 0.5))
    assert xp.fft.rfftfreq(9, dtype=xp.float32).dtype == xp.float32
    with pytest.raises(TypeError):
        xp.fft.fftfreq(4, dtype=xp.int64)
    a = _real((3, 4), np.float64)
    np.testing.assert_array_equal(xp.fft.fftshift(_array(a), axes=(0,))._t.cpu().numpy(), np.fft.fftshift(a, axes=0))
    np.testing.assert_array_equal(xp.fft.ifftshift(_array(a))._t.cpu().numpy(), np.fft.ifftshift(a))
    assert xp.fft.fft(c).dtype == xp.complex64 and xp.fft.irfft(c).dtype == xp.float32


# ---- the same on the emulated CUDA device ---------------------------------------------------------

needs_emulator = pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ or DEVICE != "cpu",
                                    reason="run by ctest, which names the emulator's config")


@needs_emulator
def test_this_file_on_the_emulated_cuda_device():
    env = dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error",
               TESSERA_FFT_TEST_DEVICE="cuda", TESSERA_ARRAY_API_DEVICE="cuda")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                          "-k", "not emulated", os.path.abspath(__file__)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


# ---- the CPU fallback: a device without FFT kernels (the arena plugin) ---------------------------

ARENA_SCRIPT = r"""
import json, sys
import numpy as np
import tessera as ts
x = np.random.default_rng(1).standard_normal((6, 10))
t = ts.from_numpy(x).to("arena:0")
outs = {"rfft": ts.fft.rfft(t), "fft": ts.fft.fft(t.T), "irfft": ts.fft.irfft(ts.fft.rfft(t), n=10),
        "fftn": ts.fft.fftn(t.to(ts.float32), s=(4, 12))}
refs = {"rfft": np.fft.rfft(x), "fft": np.fft.fft(x.T), "irfft": x, "fftn": np.fft.fftn(x, s=(4, 12))}
print(json.dumps({k: [str(v.device), str(v.dtype), bool(np.allclose(v.cpu().numpy(), refs[k], rtol=1e-5, atol=1e-5))]
                  for k, v in outs.items()}))
"""


@pytest.mark.skipif("TESSERA_TEST_ARENA_PLUGIN" not in os.environ or DEVICE != "cpu",
                    reason="run by ctest, which names the arena plugin")
def test_a_device_without_fft_kernels_runs_them_on_the_cpu_fallback(tmp_path):
    env = dict(os.environ, TESSERA_CONFIG=str(arena_config(tmp_path)), TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", ARENA_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"rfft": ["arena:0", "tessera.complex128", True], "fft": ["arena:0", "tessera.complex128", True],
                   "irfft": ["arena:0", "tessera.float64", True], "fftn": ["arena:0", "tessera.complex64", True]}, got
