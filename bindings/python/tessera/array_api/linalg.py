# SPDX-License-Identifier: Apache-2.0
"""The Array API's linear algebra extension, 2022.12 (xp.linalg): its 23
functions over tessera.linalg, so that each runs on its arguments' device;
and 2025.12's eig and eigvals (complex results of the input's precision).
The functions the standard gives a floating-point input refuse other dtypes
(TypeError), as numpy.array_api does; cross, outer and trace take any
numeric dtype, diagonal any dtype. Results with several arrays are
namedtuples with the standard's field names.

Complex arrays are taken by every function that takes a floating-point
one: the factorisations through LAPACK's complex routines (tsr_linalg_*,
ABI 1.7), with the standard's real results (eigh's and eigvalsh's
eigenvalues, svd's and svdvals' singular values, slogdet's logabsdet,
matrix_norm and vector_norm are of the real dtype).
"""
import operator
from collections import namedtuple

from .. import linalg as _linalg
from ._array_object import Array, _extension_operand, operands
from ._manipulation_functions import matmul, matrix_transpose, tensordot, vecdot
from ._reduction_functions import _dims, _sum_dtype

EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _tensor(x, category, name):
    return _extension_operand(x, category, name, "linalg")


def _floating(x, name):
    """x's tensor for a function the standard gives a floating-point input
    (real or complex)."""
    return _tensor(x, "floating-point", name)


def _pair(x1, x2, category, name):
    """Two arrays' tensors at their promoted dtype (Note [Array API promotion])."""
    _tensor(x1, category, name)
    _tensor(x2, category, name)
    return operands(x1, x2, category, name)


def _tolerance(rtol, name):
    """rtol as tessera.linalg takes it: a number, or an Array's tensor."""
    return _tensor(rtol, "real floating-point", name) if isinstance(rtol, Array) else rtol


def _arrays(tensors):
    return [Array._new(t) for t in tensors]


def cholesky(x, /, *, upper=False):
    return Array._new(_linalg.cholesky(_floating(x, "cholesky"), upper=upper))


def cross(x1, x2, /, *, axis=-1):
    a, b = _pair(x1, x2, "numeric", "cross")
    try:
        return Array._new(_linalg.cross(a, b, dim=axis))
    except RuntimeError as e:
        raise ValueError(str(e)) from None


def det(x, /):
    return Array._new(_linalg.det(_floating(x, "det")))


def diagonal(x, /, *, offset=0):
    return Array._new(_linalg.diagonal(_tensor(x, "all", "diagonal"), offset=offset))


def eig(x, /):
    """2025.12: eigenvalues and eigenvectors (columns, of 2-norm 1) of a
    general square x, complex of x's precision (complex64 for float32,
    complex128 for float64), in LAPACK's order."""
    return EigResult(*_arrays(_linalg.eig(_floating(x, "eig"))))


def eigvals(x, /):
    """2025.12: the eigenvalues of eig alone."""
    return Array._new(_linalg.eigvals(_floating(x, "eigvals")))


def eigh(x, /):
    return EighResult(*_arrays(_linalg.eigh(_floating(x, "eigh"))))


def eigvalsh(x, /):
    return Array._new(_linalg.eigvalsh(_floating(x, "eigvalsh")))


def inv(x, /):
    return Array._new(_linalg.inv(_floating(x, "inv")))


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    return Array._new(_linalg.matrix_norm(_floating(x, "matrix_norm"), ord=ord, keepdim=keepdims))


def matrix_power(x, n, /):
    return Array._new(_linalg.matrix_power(_floating(x, "matrix_power"), operator.index(n)))


def matrix_rank(x, /, *, rtol=None):
    """The rank, in the default integer dtype (int64)."""
    return Array._new(_linalg.matrix_rank(_floating(x, "matrix_rank"), rtol=_tolerance(rtol, "matrix_rank")))


def outer(x1, x2, /):
    a, b = _pair(x1, x2, "numeric", "outer")
    if a.dim() != 1 or b.dim() != 1:
        raise ValueError("outer: expected 1-d arrays, got %d-d and %d-d" % (a.dim(), b.dim()))
    return Array._new(_linalg.outer(a, b))


def pinv(x, /, *, rtol=None):
    return Array._new(_linalg.pinv(_floating(x, "pinv"), rtol=_tolerance(rtol, "pinv")))


def qr(x, /, *, mode="reduced"):
    if mode not in ("reduced", "complete"):
        raise ValueError("qr: mode must be 'reduced' or 'complete', not %r" % (mode,))
    return QRResult(*_arrays(_linalg.qr(_floating(x, "qr"), mode=mode)))


def slogdet(x, /):
    return SlogdetResult(*_arrays(_linalg.slogdet(_floating(x, "slogdet"))))


def solve(x1, x2, /):
    """x with x1 x = x2. Only a 1-d x2 is a vector here (result
    shape(x1)[:-2] + (M,)); any other x2 is a stack of matrices, where
    torch's rule would also read one of x1's shape less its last dim as a
    batch of vectors."""
    _floating(x1, "solve")
    _floating(x2, "solve")
    a, b = _pair(x1, x2, "floating-point", "solve")
    if b.dim() == 1:
        return Array._new(_linalg.solve(a, b))
    return Array._new(_linalg._solve_matrices(a, b))


def svd(x, /, *, full_matrices=True):
    return SVDResult(*_arrays(_linalg.svd(_floating(x, "svd"), full_matrices=full_matrices)))


def svdvals(x, /):
    return Array._new(_linalg.svdvals(_floating(x, "svdvals")))


def trace_with(widen_floats):
    def trace(x, /, *, offset=0, dtype=None):
        """The sums of the diagonals, in sum's dtype (signed integers to
        int64, unsigned to uint64, floating dtypes kept; 2022.12's rule,
        widen_floats, sums float32 to float64 and complex64 to complex128),
        the diagonal cast to it first."""
        diag = _linalg.diagonal(_tensor(x, "numeric", "trace"), offset=offset)
        d = _sum_dtype(x, dtype, widen_floats)
        r = (diag if diag.dtype is d else diag.to(d)).sum(-1)
        return Array._new(r if r.dtype is d else r.to(d))
    return trace


trace = trace_with(widen_floats=False)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """Of a complex array, the norm of its magnitudes |z|, in the real dtype."""
    t = _tensor(x, "floating-point", "vector_norm")
    if t.is_complex():
        t = t.abs()
    return Array._new(_linalg.vector_norm(t, ord=ord, dim=_dims(x, axis), keepdim=keepdims))


__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
           "trace", "vecdot", "vector_norm"]
