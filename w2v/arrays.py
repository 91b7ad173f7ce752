"""Array maths shared by vectors, evaluation and the file formats: finiteness checks."""
import numpy as np

from .errors import FormatError

__all__ = ["FINITE_BLOCK", "first_nonfinite_row", "check_finite"]

FINITE_BLOCK = 1 << 22   # values per block when checking an array for NaN/inf


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


def check_finite(array, path, words=None):
    """Raise FormatError naming ``path`` if the 2-d ``array`` holds NaN or infinity.

    Parameters
    ----------
    array : numpy.ndarray
        Checked in bounded blocks (memory-mapped arrays included).
    path : str
        The file, for the message.
    words : list of str, optional
        The words of the rows, named in the message.

    Raises
    ------
    FormatError
        A value is NaN or infinite.
    """
    bad = first_nonfinite_row(array)
    if bad >= 0:
        who = f" (word {words[bad]!r})" if words is not None and bad < len(words) else ""
        raise FormatError(f"{path}: row {bad}{who} contains NaN or infinity "
                          "(or a value too large for float32)")
