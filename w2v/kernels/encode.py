"""The second pass over the corpus: provisional ids to final vocabulary ids.

One pass does what three NumPy passes did (look-up, dropping the words
outside the vocabulary, collapsing empty sentences); on the 69M-token corpus
it rewrites 276 MB of ids.  benchmarks/RESULTS.md ("The vocabulary phase")
has the measured effect on ``build_vocab``.
"""
from numba import njit

OPTIONS = dict(nogil=True, cache=True, error_model="numpy", boundscheck=False)

SENTINEL = -1   # w2v.text.encoded.SENTINEL
OUTSIDE = -2    # a word outside the vocabulary, in the look-up table
UNLISTED = -2   # w2v.text.encoded.UNLISTED: a provisional id of a word a spilled scan did not list


@njit(**OPTIONS)
def remap_block(ids, table, after_sentinel, out, drop_unlisted=False):
    """Final ids of a block of provisional ids.

    Parameters
    ----------
    ids : int32[:]
        Provisional ids, ``-1`` between sentences.
    table : int32[:]
        The final id of provisional id ``i`` at ``table[i + 1]`` (``table[0]``
        is ``-1``, so that a sentinel maps to itself); ``-2`` drops the word.
    after_sentinel : bool
        Whether the stream before this block ended a sentence.
    out : int32[:]
        At least ``ids.size`` long (may be ``ids`` itself: the write position
        never passes the read position).
    drop_unlisted : bool
        Drop ``-2`` (a word that a scan which spilled its counts did not
        list) as a word outside the vocabulary, instead of refusing it.

    Returns
    -------
    int
        Ids written, or ``-1`` if an id is outside ``[-1, table.size - 2]``
        (``[-2, ...]`` with ``drop_unlisted``)
        (nothing is read out of bounds; ``out`` is then partly written).
    """
    n = 0
    top = table.size - 1
    prev_sentinel = after_sentinel
    for k in range(ids.size):
        i = ids[k]
        if i == UNLISTED and drop_unlisted:
            continue
        if i < -1 or i >= top:
            return -1
        new = table[i + 1]
        if new == OUTSIDE:
            continue
        if new == SENTINEL:
            if prev_sentinel:
                continue      # a sentinel after a sentinel closes an empty sentence: dropped
            prev_sentinel = True
        else:
            prev_sentinel = False
        out[n] = new
        n += 1
    return n
