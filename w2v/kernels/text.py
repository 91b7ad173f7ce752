"""Numba kernels that write an id stream as text: each token's bytes, a space between tokens, a
newline at each sentence end (``w2v phrases -o``)."""
from numba import njit

from .words64 import move8

OPTIONS = dict(nogil=True, cache=True, error_model="numpy", boundscheck=False)


@njit(**OPTIONS)
def text_bytes(ids, offsets):
    """The bytes :func:`write_tokens` writes for ``ids``, separators included."""
    n = 0
    for i in range(ids.size):
        t = ids[i]
        if t >= 0:
            n += offsets[t + 1] - offsets[t]
    return n


@njit(**OPTIONS)
def write_tokens(ids, arena, offsets, state, out):
    """Write the tokens of ``ids`` as text into ``out``: a space between tokens, a newline at each
    sentence end that closes a non-empty line (empty lines are dropped).

    ``arena[offsets[t]:offsets[t + 1]]`` is token ``t``'s bytes and a space.  The last byte of a
    block is the separator of the line still open, decided by the next block: the caller puts it
    back at ``out[0]`` (``state[1]``: one is pending) and writes all but the last byte written.
    ``state[0]``: whether the current line holds a token, updated.  Bytes are copied 8 at a time:
    ``arena`` has 8 bytes more than its tokens, and ``out`` must hold every token's bytes and
    space, and 9 bytes more.  Returns the bytes in ``out``.
    """
    w = 1 if state[1] else 0
    on_line = state[0]
    for i in range(ids.size):
        t = ids[i]
        if t < 0:
            if on_line:
                out[w - 1] = 10
                on_line = 0
            continue
        s = offsets[t]
        n = offsets[t + 1] - s
        for j in range(0, n, 8):
            move8(out, w + j, arena, s + j)
        w += n
        on_line = 1
    state[0] = on_line
    state[1] = 1 if w > 0 else 0
    return w
