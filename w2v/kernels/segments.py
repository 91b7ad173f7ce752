"""Cutting an id block into the GPU's segments (:mod:`w2v.cuda.host` explains the segments); a CPU
kernel, so that it runs without ``numba.cuda``."""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def make_segments(ids, seg_max, max_sentence_length):
    """Cut an id block into segments; return ``(starts int64, lengths int32)``.

    See the module docstring.  Every non-sentinel id lies in exactly one
    segment.
    """
    n = ids.size
    nsent = 0
    for p in range(n):
        if ids[p] < 0:
            nsent += 1
    cap = nsent + n // max(1, min(seg_max, max_sentence_length)) + 2
    starts = np.empty(cap, np.int64)
    lens = np.empty(cap, np.int32)
    k = 0
    p = 0
    while p < n:
        while p < n and ids[p] < 0:
            p += 1
        if p >= n:
            break
        start = p
        run = 0
        last_end = -1      # a sentinel position inside the segment (the segment may end there)
        full = False
        while p < n:
            if p - start == seg_max:
                full = True
                break
            if ids[p] < 0:
                run = 0
                last_end = p
            else:
                if run == max_sentence_length:
                    break       # split an over-long sentence here
                run += 1
            p += 1
        end = p
        if full and p < n and ids[p] >= 0 and last_end > start:
            end = last_end      # do not cut the last sentence: it starts the next segment
            p = last_end
        starts[k] = start
        lens[k] = end - start
        k += 1
    return starts[:k].copy(), lens[:k].copy()
