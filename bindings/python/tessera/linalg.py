# SPDX-License-Identifier: Apache-2.0
"""tessera.linalg: torch.linalg's functions (PyTorch 1.13's names, arguments
and results) on stacks of matrices, the last two dims being the matrix.

The factorisations and what comes straight from them (cholesky, lu_factor,
solve, inv, det, slogdet, qr, svd, svdvals, eigh, eigvalsh; eig and eigvals
from ABI 1.11) are one call each into the C API's linear algebra (ABI 1.6,
tessera.h), as are
vector_norm and diagonal (ABI 1.9). The rest (matrix_norm, pinv,
matrix_rank, matrix_power, cross, ...) is built here
from Tensor operations, so that it too runs on the input's device, with no
copy through the host. A matrix a factorisation cannot take (singular, not
positive-definite) raises LinAlgError, a RuntimeError as in PyTorch, whose
message names the batch element.
"""
import math
import numbers
import operator
from collections import namedtuple

from . import _C, _creation
from ._functions import eye as _eye, stack as _stack
from ._lib import OP, LinAlgError
from ._tensor import Tensor
from ._types import finfo, float64

# torch.return_types' names and fields.
_LUFactorResult = namedtuple("linalg_lu_factor", ["LU", "pivots"])
_SlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
_QRResult = namedtuple("linalg_qr", ["Q", "R"])
_SVDResult = namedtuple("linalg_svd", ["U", "S", "Vh"])
_EighResult = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
_EigResult = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])

_SUM, _MAX, _MIN = OP["sum"], OP["max"], OP["min"]


def _tensor(name, x, arg="A", position=1):
    if not isinstance(x, Tensor):
        raise TypeError("linalg.%s(): argument '%s' (position %d) must be Tensor, not %s" %
                        (name, arg, position, type(x).__name__))
    return x


def _floating(name, A, dtype=None):
    """A, cast to `dtype` when one is given; integers and bool are refused,
    as torch.linalg and the C functions refuse them (tessera.h)."""
    if dtype is not None:
        A = A.to(dtype)
    if A.dtype.is_complex:
        return A
    if not A.dtype.is_floating_point:
        raise RuntimeError("linalg.%s: Expected a floating point or complex tensor as input. Got %s" % (name, A.dtype))
    return A


def _mT(A):
    return A.transpose(-2, -1)


# ---- the factorisations: one C call each --------------------------------------------


def cholesky(A, *, upper=False):
    return _C.linalg_cholesky(_tensor("cholesky", A), bool(upper))


def lu_factor(A):
    """(LU, pivots): L (unit diagonal, below it) and U packed in one matrix,
    and LAPACK's 1-based row interchanges (int32)."""
    return _LUFactorResult(*_C.linalg_lu_factor(_tensor("lu_factor", A)))


def _is_vector(A, B):
    """torch's rule for B in A X = B: a vector when 1-D or of A's shape
    without its last dim (the C function's rule too)."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve_matrices(A, B):
    """A X = B with B [.., n, k] read as matrices even where torch's rule
    would read it as a batch of vectors: a leading 1 (which broadcasts away)
    takes it out of that rule."""
    if B.dim() == A.dim() - 1:
        B = B.unsqueeze(0)
    return _C.linalg_solve(A, B)


def solve(A, B, *, left=True):
    """X with A X = B (left=False: X A = B); B a vector or a batch of
    vectors by torch's rule, the batch dims broadcasting."""
    A, B = _tensor("solve", A), _tensor("solve", B, "B", 2)
    if left:
        return _C.linalg_solve(A, B)
    # X A = B is A^T X^T = B^T; a vector is its own transpose.
    At = _mT(A)
    if _is_vector(A, B):
        return _C.linalg_solve(At, B)
    return _mT(_solve_matrices(At, _mT(B)))


def inv(A):
    return _C.linalg_inv(_tensor("inv", A))


def det(A):
    return _C.linalg_det(_tensor("det", A))


def slogdet(A):
    return _SlogdetResult(*_C.linalg_slogdet(_tensor("slogdet", A)))


def qr(A, mode="reduced"):
    """(Q, R): "reduced" Q [.., m, k] and R [.., k, n] (k = min(m, n)),
    "complete" Q [.., m, m] and R [.., m, n], "r" R alone (Q empty)."""
    A = _tensor("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError("qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'" % (mode,))
    Q, R = _C.linalg_qr(A, mode == "complete")
    if mode == "r":
        Q = _creation.zeros(0, dtype=R.dtype, device=R.device)
    return _QRResult(Q, R)


def svd(A, full_matrices=True):
    U, S, Vh = _C.linalg_svd(_tensor("svd", A), bool(full_matrices))
    return _SVDResult(U, S, Vh)


def svdvals(A):
    return _C.linalg_svd(_tensor("svdvals", A), False, False)[1]


def _lower(name, A, UPLO):
    """A with the triangle UPLO names in its lower triangle, which is the one
    the C function reads: 'U' is the conjugate transpose of the Hermitian A
    (of a real one, the transpose: a view)."""
    A = _tensor(name, A)
    if UPLO not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % (UPLO,))
    return A if UPLO == "L" else A.mH


def eigh(A, UPLO="L"):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric A, read
    from its lower (UPLO='L') or upper ('U') triangle."""
    return _EighResult(*_C.linalg_eigh(_lower("eigh", A, UPLO)))


def eigvalsh(A, UPLO="L"):
    return _C.linalg_eigh(_lower("eigvalsh", A, UPLO), False)[0]


def eig(A):
    """(eigenvalues, eigenvectors as columns of 2-norm 1) of a general square
    A, in LAPACK's order (ABI 1.11): complex whatever A's dtype (complex64 for
    float32, complex128 for float64). They have no gradient here: Tessera
    does not differentiate complex results."""
    return _EigResult(*_C.linalg_eig(_tensor("eig", A)))


def eigvals(A):
    return _C.linalg_eigvals(_tensor("eigvals", A))


# ---- built from Tensor operations ----------------------------------------------------


def _batch_value(v, like):
    """A tolerance per matrix against `like` ([.., k]): a Tensor of the batch
    shape gains the last dim, a number becomes a 0-d tensor of like's dtype
    (through float64, so that float32 rounds it as a cast does, to inf
    beyond its range, where fill refuses it)."""
    if isinstance(v, Tensor):
        return v.unsqueeze(-1)
    return _creation.full((), float(v), dtype=float64, device=like.device).to(like.dtype)


def _cutoff(A, largest, atol, rtol):
    """torch.linalg's bound below which singular values (or |eigenvalues|)
    count as zero: max(atol, rtol * largest) per matrix, rtol defaulting to
    eps * max(m, n), or to 0 where a positive atol is given."""
    default = finfo(A.dtype).eps * max(A.shape[-2], A.shape[-1])
    if rtol is None:
        if atol is None:
            rtol = default
        elif isinstance(atol, Tensor):
            rtol = (atol <= 0).to(largest.dtype) * default
        else:
            rtol = 0.0 if atol > 0 else default
    tol = _batch_value(rtol, largest) * largest
    return tol if atol is None else tol.maximum(_batch_value(atol, largest))


def _largest_abs(w):
    """max |w| over the last dim of ascending eigenvalues: at one of the two
    ends; [.., 1], or [.., 0] for none."""
    return w[..., :1].abs().maximum(w[..., -1:].abs())


def _tolerance(v, A):
    """A tolerance of pinv as the C function takes it: None, a Tensor, or a
    number as a 0-d float64 tensor (the C function casts it to A's real
    dtype, as a float32 cast rounds it)."""
    if v is None or isinstance(v, Tensor):
        return v
    return _creation.full((), float(v), dtype=float64, device=A.device)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse from the SVD (hermitian: from eigh), singular values
    at or below max(atol, rtol * the largest) taken as zero
    (tsr_linalg_pinv; its gradient is torch's)."""
    A = _floating("pinv", _tensor("pinv", A))
    atol, rtol = _tolerance(atol, A), _tolerance(rtol, A)
    return _C.linalg_pinv(A, atol, rtol, bool(hermitian))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values (hermitian: |eigenvalues|) above the
    cutoff (see _cutoff), int64."""
    A = _floating("matrix_rank", _tensor("matrix_rank", A))
    if hermitian:
        w = eigvalsh(A)
        S, largest = w.abs(), _largest_abs(w)
    else:
        S = svdvals(A)
        largest = S[..., :1]
    return (S > _cutoff(A, largest, atol, rtol)).sum(-1)


def _dim_index(d, n):
    d = operator.index(d)
    if not -n <= d < n:
        lo, hi = (-n, n - 1) if n else (-1, 0)
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)" % (lo, hi, d))
    return d % n


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """'fro', 'nuc', 2 and -2 (largest and smallest singular value), 1 and -1
    (max and min column sum of |A|), inf and -inf (max and min row sum) of
    the matrices in dims `dim` (rows, cols)."""
    A = _floating("matrix_norm", _tensor("matrix_norm", A), dtype)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got %s" % (dim,))
    rows, cols = _dim_index(dim[0], A.dim()), _dim_index(dim[1], A.dim())
    if rows == cols:
        raise RuntimeError("linalg.matrix_norm: dims must be different. Got (%d, %d)" % (rows, cols))
    # The two dims last, the batch before them in order (a view).
    M = A.permute([d for d in range(A.dim()) if d not in (rows, cols)] + [rows, cols])
    if ord == "fro":
        r = vector_norm(M, 2, (-2, -1))
    elif ord == "nuc":
        r = svdvals(M).sum(-1)
    elif ord in (2, -2):
        r = svdvals(M)[..., 0 if ord == 2 else -1]  # they descend
    elif ord in (1, -1, math.inf, -math.inf):
        sums = M.abs().sum(-2 if ord in (1, -1) else -1)
        r = sums._reduce(_MAX if ord > 0 else _MIN, -1, False)
    else:
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % (ord,))
    if keepdim:
        for d in sorted((rows, cols)):
            r = r.unsqueeze(d)
    return r


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ord-norm over dims `dim` (None: all): inf and -inf the max and min
    of |x|, 0 the count of nonzeros, else sum(|x|^ord)^(1/ord)
    (tsr_linalg_vector_norm, whose gradient is torch's: 0 where the norm
    is 0, the max shared among ties)."""
    x = _floating("vector_norm", _tensor("vector_norm", x, "x"), dtype)
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise TypeError("linalg.vector_norm(): argument 'ord' must be Number, not %s" % type(ord).__name__)
    if dim is None:
        dims = []
    else:
        dims = [operator.index(d) for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
    return _C.linalg_vector_norm(x, float(ord), dims, bool(keepdim))


def matrix_power(A, n):
    """A^n by repeated squaring (as torch: log2(n) squarings); n = 0 the
    identity, n < 0 the power of inv(A)."""
    A = _tensor("matrix_power", A)
    n = operator.index(n)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    if n == 0:
        size = A.shape[-1]
        return _eye(size, size, dtype=A.dtype, device=A.device).expand(tuple(A.shape)).contiguous()
    if n < 0:
        A, n = inv(A), -n
    result, square = None, A
    while True:
        if n & 1:
            result = square if result is None else result @ square
        n >>= 1
        if not n:
            break
        square = square @ square
    return result.clone() if result is A else result


def cross(input, other, dim=-1):
    """The cross product of the 3-vectors along `dim`; the other dims
    broadcast (the inputs may differ in rank: dim counts in the result)."""
    a, b = _tensor("cross", input, "input"), _tensor("cross", other, "other", 2)
    n = max(a.dim(), b.dim())
    d = _dim_index(dim, n) - n  # from the end, where the two inputs' dims align
    if min(a.dim(), b.dim()) < -d or a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %s and %s" %
                           (dim, a.shape[d] if a.dim() >= -d else "none", b.shape[d] if b.dim() >= -d else "none"))
    a0, a1, a2 = (_C.select(a, d, i) for i in range(3))
    b0, b1, b2 = (_C.select(b, d, i) for i in range(3))
    return _stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal `offset` of the matrices in dims (dim1, dim2) as the
    last dim: a view, as torch's (tsr_diagonal)."""
    A = _tensor("diagonal", A)
    return _C.diagonal(A, operator.index(offset), operator.index(dim1), operator.index(dim2))


def outer(input, vec2):
    a, b = _tensor("outer", input, "input"), _tensor("outer", vec2, "vec2", 2)
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError("outer: expected 1-D vectors, got %dD and %dD" % (a.dim(), b.dim()))
    return a.unsqueeze(1) * b.unsqueeze(0)


def tensordot(a, b, dims=2):
    """torch.tensordot: the sum over a's dims dims[0] and b's dims[1] (an int
    n: a's last n with b's first n), the free dims of a then b."""
    a, b = _tensor("tensordot", a, "a"), _tensor("tensordot", b, "b", 2)
    if isinstance(dims, (tuple, list)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dims, got %r" % (dims,))
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        dims_a = [_dim_index(d, a.dim()) for d in dims_a]
        dims_b = [_dim_index(d, b.dim()) for d in dims_b]
    else:
        k = operator.index(dims)
        if k < 0 or k > min(a.dim(), b.dim()):
            raise RuntimeError("tensordot expects dims >= 0 and at most the inputs' dims, but got dims=%d" % k)
        dims_a, dims_b = list(range(a.dim() - k, a.dim())), list(range(k))
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    for i, j in zip(dims_a, dims_b):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError("contracted dimensions need to match, but first has size %d in dim %d and second has "
                               "size %d in dim %d" % (a.shape[i], i, b.shape[j], j))
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    # One matmul: a as [free, contracted], b as [contracted, free].
    am = a.permute(free_a + dims_a).reshape(math.prod(a.shape[d] for d in free_a),
                                            math.prod(a.shape[d] for d in dims_a))
    bm = b.permute(dims_b + free_b).reshape(math.prod(b.shape[d] for d in dims_b),
                                            math.prod(b.shape[d] for d in free_b))
    return (am @ bm).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def vecdot(x, y, dim=-1):
    """The dot products of the vectors along `dim`, the other dims broadcast:
    sum(conj(x) * y), as torch.linalg.vecdot defines it for complex x."""
    x = _tensor("vecdot", x, "x")
    if x.dtype.is_complex:
        x = x.conj()
    return (x * _tensor("vecdot", y, "y", 2)).sum(dim)


def matmul(input, other):
    return _C.matmul(_tensor("matmul", input, "input"), _tensor("matmul", other, "other", 2))


__all__ = ["LinAlgError", "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lu_factor", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensordot", "vecdot", "vector_norm"]
