"""The corpus fingerprint's kernel: a 128-bit, order-sensitive, summable hash of an id stream
(:mod:`w2v.training.fingerprint` explains the hash)."""
import numpy as np
from numba import njit

from .draws import splitmix64

_K2 = np.uint64(0xD1B54A32D192ED03)   # a second odd multiplier: the two halves hash x and x * _K2
_S32 = np.uint64(32)


@njit(cache=True, nogil=True)
def fold_ids(ids, first, acc):
    """Add the words of ``ids`` (``-1`` skipped), the first being word ``first`` of the corpus, to ``acc``.

    ``acc`` is uint64[2]; returns the index of the word after the last.
    """
    j = first
    for k in range(ids.size):
        w = ids[k]
        if w < 0:
            continue
        x = (np.uint64(w) << _S32) ^ np.uint64(j)
        acc[0] += splitmix64(x)[0]
        acc[1] += splitmix64(x * _K2)[0]
        j += 1
    return j
