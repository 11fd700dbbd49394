# SPDX-License-Identifier: Apache-2.0
"""scikit-learn's array-API mode (Debian's scikit-learn 1.2) on tessera.array_api
arrays, against the same calls on NumPy arrays, on the cpu and on the emulated
cuda device (tests/cuda_emu); and the NumPy-style questions such code asks of
a dtype (Note [NumPy's view of a dtype] in tessera/_types.py).

In scikit-learn 1.2 what honours array_api_dispatch is LinearDiscriminantAnalysis
(solver "svd": fit, predict, transform, decision_function, predict_proba,
predict_log_proba) and the helpers it goes through (check_array,
unique_labels). Predictions must equal NumPy's exactly and the rest agree to
1e-10; the projections up to the sign of each component, since singular
vectors are defined up to sign and the cuda device's SVD (cuSOLVER's) need not
pick LAPACK's (NumPy's docs and PyTorch's say the same of theirs)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.array_api as xp

SCRIPT = r"""
import sys, warnings
import numpy as np
import sklearn
from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_array
import tessera.array_api as xp

warnings.simplefilter("ignore")  # digits has constant pixels: "Variables are collinear"
device = sys.argv[1]
X, y = load_digits(return_X_y=True)
ref = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
want = {"predict": ref.predict(X), "transform": ref.transform(X), "decision_function": ref.decision_function(X),
        "predict_proba": ref.predict_proba(X), "predict_log_proba": ref.predict_log_proba(X),
        "unique_labels": unique_labels(y), "check_array": check_array(X)}
with sklearn.config_context(array_api_dispatch=True):
    Xt, yt = xp.asarray(X, device=device), xp.asarray(y, device=device)
    m = LinearDiscriminantAnalysis(solver="svd").fit(Xt, yt)
    got = {"predict": m.predict(Xt), "transform": m.transform(Xt), "decision_function": m.decision_function(Xt),
           "predict_proba": m.predict_proba(Xt), "predict_log_proba": m.predict_log_proba(Xt),
           "unique_labels": unique_labels(yt), "check_array": check_array(Xt)}
for name, v in got.items():
    a, w = np.asarray(v.to_device("cpu")), want[name]
    if name == "transform":
        a = a * np.sign(np.sum(a * w, axis=0))  # each component's sign (see the module's docstring)
    if name in ("predict", "unique_labels"):
        ok = a.dtype == w.dtype and np.array_equal(a, w)
    else:
        ok = a.shape == w.shape and float(np.max(np.abs(a - w))) <= 1e-10
    print(name, str(v.device).split(":")[0], "ok" if ok else "MISMATCH %r vs %r" % (a.ravel()[:4], w.ravel()[:4]))
"""

NAMES = ("predict", "transform", "decision_function", "predict_proba", "predict_log_proba", "unique_labels",
         "check_array")


def _run(device, env):
    out = subprocess.run([sys.executable, "-c", SCRIPT, device], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    lines = out.stdout.split("\n")
    for name in NAMES:
        assert "%s %s ok" % (name, device) in lines, out.stdout


def test_linear_discriminant_analysis_on_the_cpu():
    _run("cpu", dict(os.environ, TESSERA_ARRAY_API_DEVICE="cpu"))


@pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ,
                    reason="run by ctest, which names the emulator's config")
def test_linear_discriminant_analysis_on_the_emulated_cuda_device():
    # The default array device is cuda too: scikit-learn makes arrays (xp.zeros) without a device.
    _run("cuda", dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error",
                      TESSERA_ARRAY_API_DEVICE="cuda"))


NUMPY_NAMED = [d for d in tessera._types.DTYPES if d is not tessera.bfloat16]


@pytest.mark.parametrize("d", NUMPY_NAMED, ids=str)
def test_a_dtype_answers_numpys_questions(d):
    ref = np.dtype(d.name)
    assert np.dtype(d) == ref
    assert (d.kind, d.itemsize, d.name) == (ref.kind, ref.itemsize, ref.name)
    assert np.zeros(2, dtype=d).dtype == ref


def test_bfloat16_has_kind_f_and_no_numpy_dtype():
    assert (tessera.bfloat16.kind, tessera.bfloat16.itemsize, tessera.bfloat16.name) == ("f", 2, "bfloat16")
    with pytest.raises(TypeError):
        np.dtype(tessera.bfloat16)


def test_dtype_equality_and_hashing_are_unchanged():
    assert tessera.float64 == xp.float64 and tessera.float64 != tessera.float32
    assert tessera.float64 != np.float64 and tessera.float64 != "float64"
    assert len({tessera.float64, xp.float64, tessera.int64}) == 2
    assert {tessera.float32: 1}[xp.float32] == 1


def test_numpy_style_arguments_of_the_array_api():
    x = xp.reshape(xp.arange(6), (2, 3))
    assert xp.reshape(x, -1).shape == (6,)  # an int shape, as NumPy takes (scikit-learn's column_or_1d)
    assert xp.permute_dims(xp.arange(3), 0).shape == (3,)
    # Python's scalar types and NumPy's dtypes as dtypes: the standard's defaults, NumPy's names.
    assert xp.astype(x, int).dtype == xp.int64 and xp.astype(x, float).dtype == xp.float64
    assert xp.astype(x, bool).dtype == xp.bool and xp.astype(x, complex).dtype == xp.complex128
    assert xp.astype(x, np.float32).dtype == xp.float32 and xp.astype(x, np.dtype("uint8")).dtype == xp.uint8
    assert xp.zeros(2, dtype=float).dtype == xp.float64
    with pytest.raises(ValueError):
        xp.astype(x, "float32")
