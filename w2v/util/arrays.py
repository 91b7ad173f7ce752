"""Array maths shared by vectors, evaluation and the file formats.

Norms and unit rows computed as gensim computes them, and the one check
(with its one message) for NaN and infinity in a matrix of vectors.
"""
import numpy as np

from ..errors import FormatError

__all__ = ["BLOCK_ELEMENTS", "FINITE_BLOCK", "HUGE_NORM", "first_nonfinite_row", "nonfinite_error",
           "check_finite", "row_norms", "unitvec", "unitrows"]

try:  # gensim normalises with double-precision BLAS; mirror it when scipy is there
    from scipy.linalg.blas import dnrm2 as _dnrm2
except Exception:  # pragma: no cover - scipy is optional
    _dnrm2 = None

FINITE_BLOCK = 1 << 22   # values per block when checking an array for NaN/inf

#: largest similarity block (queries x vocabulary) computed at once, in elements
BLOCK_ELEMENTS = 1 << 23

_NORM_BLOCK = 1 << 18     # elements per block when computing the norms (a 1 MiB temporary)

# A float32 norm computed from float32 squares is exact to rounding only in a middle range:
# above ~1.8e19 the squares overflow to inf, below ~1e-19 they go subnormal (and vanish below
# ~4e-23).  Rows whose fast norm falls outside [_TINY_NORM, float32 max] are recomputed in
# float64 from the row scaled by its largest |value|, which is exact for any finite row.
_TINY_NORM = 1e-15
_F32_MAX = float(np.finfo(np.float32).max)

#: A score is ``row . q / norm`` with a unit query ``q``: |row . q| <= norm, so no float32 dot
#: product overflows while every norm stays below half the float32 range (room for rounding).
#: A row with a larger norm (values near the float32 maximum) is refused, as NaN and inf are.
HUGE_NORM = _F32_MAX / 2


def first_nonfinite_row(arr):
    """Index of the first row of a 2-d array holding NaN or infinity, or -1.

    Works in blocks of ``FINITE_BLOCK`` values (a memory-mapped array is
    read once, in bounded memory).  A block's sum is finite when all its
    values are; where it is not (or it overflowed) the values are checked
    one by one: about twice as fast as ``isfinite`` on every value.
    """
    if arr.ndim != 2 or arr.size == 0:
        return -1
    rows = max(1, FINITE_BLOCK // arr.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, len(arr), rows):
            block = arr[start:start + rows]
            if np.isfinite(np.add.reduce(block, axis=None)):
                continue
            ok = np.isfinite(block).all(axis=1)
            if not ok.all():
                return start + int(np.argmin(ok))
    return -1


def nonfinite_error(row, word=None, path=None, where=None, error=FormatError):
    """The error for a row of vectors holding NaN or infinity: one message everywhere.

    Parameters
    ----------
    row : int
        The row (of the whole matrix).
    word : str, optional
        The word of the row, named in the message.
    path : str, optional
        The file, first in the message.
    where : str, optional
        A place in the file (``"line 3"``, ``"byte offset 120"``) or what was
        being done (``"cannot save"``), after the path.
    error : type, optional
        The exception class (:class:`FormatError` unless given).

    Returns
    -------
    Exception
        ``[path: ][where: ]row R (word 'w') contains NaN or infinity (or a
        value too large for float32)``.
    """
    who = f" (word {word!r})" if word is not None else ""
    prefix = "".join(f"{part}: " for part in (path, where) if part is not None)
    return error(f"{prefix}row {row}{who} contains NaN or infinity (or a value too large for float32)")


def check_finite(array, path=None, words=None, where=None, error=FormatError):
    """Raise :func:`nonfinite_error` if the 2-d ``array`` holds NaN or infinity.

    Parameters
    ----------
    array : numpy.ndarray
        Checked in bounded blocks (memory-mapped arrays included).
    path : str, optional
        The file, for the message.
    words : list of str, optional
        The words of the rows, named in the message.
    where : str, optional
        Placed after the path in the message (see :func:`nonfinite_error`).
    error : type, optional
        The exception class (:class:`FormatError` unless given).

    Raises
    ------
    FormatError
        A value is NaN or infinite (or ``error``).
    """
    bad = first_nonfinite_row(array)
    if bad >= 0:
        word = words[bad] if words is not None and bad < len(words) else None
        raise nonfinite_error(bad, word, path, where, error)


def row_norms(vecs):
    """Norms of the rows of a 2-D float array, robust to any finite value.

    Parameters
    ----------
    vecs : numpy.ndarray
        Shape ``(n, dim)``, float32 (or float64).

    Returns
    -------
    norms : numpy.ndarray
        ``np.linalg.norm(vecs, axis=1)`` bit for bit (gensim's norms) on every
        row whose squares neither overflow nor go subnormal; the other rows
        are recomputed in float64.
    div : numpy.ndarray
        The divisor of the scores ``vecs @ q / div``: ``norms`` with 1 for zero
        rows (whose dot product is exactly 0, so their cosine is 0, not NaN);
        ``norms`` itself when there are none.
    bad : int
        The first row holding NaN or infinity or whose norm passes
        ``HUGE_NORM``, or -1.
    """
    n, dim = vecs.shape
    # np.linalg.norm(vecs, axis=1) (gensim's norms, bit for bit), block by block in a
    # cache-sized temporary instead of a full-size one: about 2x faster on large models
    rows = max(1, _NORM_BLOCK // max(1, dim))
    norms = np.empty(n, dtype=vecs.dtype)
    tmp = np.empty((min(rows, n), dim), dtype=vecs.dtype)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for start in range(0, n, rows):
            block = vecs[start:start + rows]
            sq = np.multiply(block, block, out=tmp[:len(block)])
            np.sqrt(np.add.reduce(sq, axis=1), out=norms[start:start + rows])
    # NaN compares False: rows with NaN are suspects too; so are zero rows (cheap to redo)
    suspects = np.flatnonzero(~((norms >= _TINY_NORM) & (norms <= _F32_MAX)))
    if suspects.size == 0:
        return norms, norms, -1
    bad = _exact_norms(vecs, norms, suspects, rows)
    if bad >= 0:
        return norms, norms, bad
    div = norms.copy()
    div[norms == 0] = 1.0
    return norms, div, -1


def _exact_norms(vecs, norms, suspects, rows):
    """Recompute ``norms[suspects]`` in float64, in place; the first refused row, or -1."""
    for start in range(0, suspects.size, rows):
        idx = suspects[start:start + rows]
        sub = vecs[idx].astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            # ||v|| = m ||v / m|| with m = max |v_i|: no square overflows or underflows
            m = np.abs(sub).max(axis=1)
            m[m == 0] = 1.0
            sub /= m[:, None]
            scaled = np.sqrt(np.einsum("ij,ij->i", sub, sub))
            exact = m * scaled
            # NaN or inf values (a finite row has a finite norm), or a norm too large to score
            refused = ~(exact <= HUGE_NORM)
            if refused.any():
                return int(idx[np.argmax(refused)])
            norms[idx] = exact
    return -1


def unitvec(vec):
    """Scale a 1-D vector to unit length exactly as gensim's ``matutils.unitvec`` does.

    The length is computed in double precision, the vector is multiplied by
    its reciprocal in double precision and the result cast back to the input
    dtype.  A zero vector is returned unchanged.

    Parameters
    ----------
    vec : array_like
        1-D.

    Returns
    -------
    numpy.ndarray
        Of ``vec``'s dtype (float64 for integers).
    """
    vec = np.asarray(vec)
    if vec.size == 0:
        return vec
    v64 = np.asarray(vec, dtype=np.float64)
    veclen = float(_dnrm2(v64)) if _dnrm2 is not None else float(np.sqrt(np.dot(v64, v64)))
    if veclen > 0.0:
        out_dtype = np.float64 if np.issubdtype(vec.dtype, np.integer) else vec.dtype
        return (v64 * (1.0 / veclen)).astype(out_dtype)
    return vec


def unitrows(mat):
    """Row-wise :func:`unitvec` of a 2-D array, computed in float64.

    Parameters
    ----------
    mat : array_like
        2-D.

    Returns
    -------
    numpy.ndarray
        float32 rows of unit length (zero rows stay zero).
    """
    mat = np.asarray(mat, dtype=np.float64)
    if _dnrm2 is not None:
        lens = np.array([_dnrm2(row) for row in mat], dtype=np.float64)
    else:
        lens = np.sqrt(np.einsum("ij,ij->i", mat, mat))
    scale = np.ones_like(lens)
    nz = lens > 0
    scale[nz] = 1.0 / lens[nz]
    return (mat * scale[:, None]).astype(np.float32)
