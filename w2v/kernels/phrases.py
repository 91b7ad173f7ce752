"""Numba kernels of phrase detection: pair counting, connector runs, greedy joining.

Every kernel walks an id stream (``-1`` ends a sentence) with the same state
machine, so that counting and joining agree on which pairs exist:

* a *start* is the last word that is not a connector; a connector after a
  start extends the *run* between the start and the next word (gensim's
  ``in_between``); a word after a start makes the candidate
  ``(start, run, word)``;
* a sentence end resets the start (except with ``cross_lines``: word2phrase
  counts the pair of the last word of a line and the first of the next);
* with ``chunk`` > 0 a new sentence also begins every ``chunk`` tokens of a
  line (gensim's ``LineSentence``/``Text8Corpus`` split long lines so);
* a run longer than ``max_run`` connectors drops the start (memory stays
  bounded whatever the text; a gensim sentence is shorter than that).

A stream id ``t`` stands for the model token ``t`` when ``t < n_ident``,
else for ``key_extra[t - n_ident]`` (``-1``: a token the model does not
know); its connector flag is ``conn_model[t]`` or ``conn_extra[t - n_ident]``
alike.  So a scanned corpus (provisional ids) and a model's own ids go
through the same kernels.

Hash tables are int64 arrays of slots, one row each, any number of them, with linear probing:
``(a << 32 | b, run, value)``, or ``(a << 32 | b, value)`` in a table of two columns, whose
pairs have no connector run (a third less memory).  A slot stores its key plus one, so that 0
marks an empty slot and a table is a fresh ``np.zeros`` (pages the kernel maps lazily).
"""
import math

import numpy as np
from numba import njit

from .prefetch import prefetch_row
from .tokenize import mix_hash

OPTIONS = dict(nogil=True, cache=True, error_model="numpy", boundscheck=False)

EMPTY = 0
PREFETCH_AHEAD = 16  # how far ahead count_pairs prefetches the slot of a plain pair
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_PART_SHIFT = np.uint64(32)
_HIGH_HALF = np.uint64(32)   # the filter bit comes from the hash's high half


@njit(inline="always", **OPTIONS)
def model_id(t, n_ident, key_extra):
    """The model token of stream id ``t`` (``-1``: unknown)."""
    return t if t < n_ident else key_extra[t - n_ident]


@njit(inline="always", **OPTIONS)
def is_connector(t, n_ident, conn_model, conn_extra):
    """Whether stream id ``t`` is a connector word."""
    return conn_model[t] if t < n_ident else conn_extra[t - n_ident]


@njit(inline="always", **OPTIONS)
def pair_hash(key, run):
    """The hash of the pair key ``a << 32 | b`` with connector run ``run``."""
    return mix_hash(np.uint64(key) * _K1 ^ np.uint64(run) * _K2)


@njit(inline="always", **OPTIONS)
def part_of(h, nparts):
    """The partition (counting thread) that owns hash ``h``: a multiply and a shift of its high bits,
    no division (17M divisions cost a third of counting the 17M-token wiki slice)."""
    return np.int64(((h >> _PART_SHIFT) * np.uint64(nparts)) >> _PART_SHIFT)


@njit(inline="always", **OPTIONS)
def home_slot(h, slots):
    """The first slot of hash ``h`` in a table of ``slots`` slots (any number: a multiply and a shift
    of the hash's low 32 bits, so that a table need not be a power of two, which could double it)."""
    return np.int64(((h & np.uint64(0xFFFFFFFF)) * np.uint64(slots)) >> np.uint64(32))


@njit(inline="always", **OPTIONS)
def find_slot(table, key, run, h):
    """The slot holding ``(key, run)``, or the empty slot where it would go."""
    slots = table.shape[0]
    s = home_slot(h, slots)
    stored = key + 1
    with_runs = table.shape[1] == 3
    while True:
        e = table[s, 0]
        if e == EMPTY or (e == stored and (not with_runs or table[s, 1] == run)):
            return s
        s += 1
        if s == slots:
            s = 0


@njit(inline="always", **OPTIONS)
def slot_run(table, s):
    """The connector run of slot ``s`` (0 in a table without runs)."""
    return table[s, 1] if table.shape[1] == 3 else np.int64(0)


@njit(inline="always", **OPTIONS)
def put_slot(table, s, key, run, value):
    """Store ``(key, run) -> value`` in the empty slot ``s``."""
    table[s, 0] = key + 1
    if table.shape[1] == 3:
        table[s, 1] = run
    table[s, table.shape[1] - 1] = value


@njit(inline="always", **OPTIONS)
def lookup(table, key, run, h):
    """The value stored for ``(key, run)`` (hash ``h``), or -1.  A table of two columns holds no
    pair with a connector run, so such a pair is never found there."""
    if run != 0 and table.shape[1] == 2:
        return np.int64(-1)
    s = find_slot(table, key, run, h)
    return table[s, table.shape[1] - 1] if table[s, 0] != EMPTY else np.int64(-1)


@njit(inline="always", **OPTIONS)
def filter_bit(h, bits):
    """The bit of hash ``h`` in the filter ``bits`` (uint64 words, a power of two of them): taken from
    the hash's high half, so it does not follow the slot (:func:`home_slot` reads the low half)."""
    return np.int64(h >> _HIGH_HALF) & (bits.size * 64 - 1)


@njit(inline="always", **OPTIONS)
def may_hold(bits, h):
    """False when no entry of the filter's table has hash ``h`` (true may be a false positive)."""
    k = filter_bit(h, bits)
    return (bits[k >> 6] >> np.uint64(k & 63)) & np.uint64(1) != 0


@njit(**OPTIONS)
def fill_filter(table, bits):
    """Set the filter bit of every entry of ``table`` in ``bits`` (zeros)."""
    for s in range(table.shape[0]):
        if table[s, 0] != EMPTY:
            k = filter_bit(pair_hash(table[s, 0] - 1, slot_run(table, s)), bits)
            bits[k >> 6] |= np.uint64(1) << np.uint64(k & 63)


@njit(**OPTIONS)
def count_pairs(ids, first, cut, n_ident, key_extra, conn_model, conn_extra, run_at, use_runs, cross_lines, chunk,
                max_run, part, nparts, table, fill, limit, unigram, state, vocab_limit, vocab):
    """Count the unigrams and pairs of ``ids[first:cut]`` that partition ``part`` of ``nparts`` owns.

    Parameters
    ----------
    ids : int32[:]
        Stream ids, ``-1`` at sentence ends.
    first, cut : int
        Ids to do.
    run_at : int32[:]
        With ``use_runs``: per word, the id of the connector run before it
        (:func:`intern_runs`); else unused.
    table : int64[:, :]
        This partition's slots (two columns when not ``use_runs``).
    fill : int64[:]
        ``fill[0]``: entries in ``table``, updated.
    limit : int
        Entries ``table`` may hold (fewer than its slots): the kernel stops before an id when
        ``table`` holds that many, and returns that id's position (the caller grows the table
        and goes on from there with ``state``).
    unigram : int64[:]
        Counts per model token; partition 0 counts them.
    state : int64[3]
        ``(start, tokens of the line so far, run length)``, updated.
    vocab_limit : int
        gensim's ``max_vocab_size`` (``-1``: none; only with one partition): when a sentence
        ends with more words (connectors excepted) and pairs held than that, the kernel sets
        ``vocab[1]`` and returns the position after the sentence (the caller prunes and goes on
        from there).  A sentence is what gensim reads: every sentence of Python sentences
        (``chunk`` 0), empty ones included; each piece of a line of a file that is not empty.
    vocab : int64[2]
        ``(words held, prune requested)``: partition 0 counts a word that is not a connector
        when its count leaves 0.

    Returns
    -------
    int
        ``cut``, or the position where the table filled up or a prune is requested.
    """
    # blocking: the state machine, the prefetch of a later pair's slot and the insertion share one loop
    slots = table.shape[0]
    value_col = table.shape[1] - 1
    start = state[0]
    pos = state[1]
    run_len = state[2]
    used = fill[0]
    held = vocab[0]
    done = cut
    for i in range(first, cut):
        if used >= limit:
            done = i
            break
        ahead = i + PREFETCH_AHEAD
        if ahead < cut and not use_runs:
            pa = ids[ahead - 1]
            pb = ids[ahead]
            if pa >= 0 and pb >= 0:
                ka = np.int64(model_id(pa, n_ident, key_extra))
                kb = np.int64(model_id(pb, n_ident, key_extra))
                h = pair_hash((ka << 32) | kb, 0)
                if nparts == 1 or part_of(h, nparts) == part:
                    prefetch_row(table, home_slot(h, slots), table.shape[1])   # a slot may straddle two lines
        t = ids[i]
        if t < 0:
            ended = pos > 0 or chunk == 0   # a sentence gensim reads ends here
            if not cross_lines:
                start = -1
                run_len = 0
            pos = 0
            if vocab_limit >= 0 and ended and held + used > vocab_limit:
                vocab[1] = 1
                done = i + 1
                break
            continue
        if chunk > 0 and pos == chunk:
            start = -1
            run_len = 0
            pos = 0
            if vocab_limit >= 0 and held + used > vocab_limit:
                vocab[1] = 1
                done = i
                break
        pos += 1
        k = np.int64(model_id(t, n_ident, key_extra))
        connector = use_runs and is_connector(t, n_ident, conn_model, conn_extra)
        if part == 0:
            if unigram[k] == 0 and not connector:
                held += 1
            unigram[k] += 1
        if connector:
            if start >= 0:
                run_len += 1
                if run_len > max_run:
                    start = -1
                    run_len = 0
            continue
        if start >= 0:
            run = np.int64(run_at[i]) if use_runs else np.int64(0)
            key = (start << 32) | k
            h = pair_hash(key, run)
            if nparts == 1 or part_of(h, nparts) == part:
                s = find_slot(table, key, run, h)
                if table[s, 0] == EMPTY:
                    put_slot(table, s, key, run, 1)
                    used += 1
                else:
                    table[s, value_col] += 1
        start = k
        run_len = 0
    state[0] = start
    state[1] = pos
    state[2] = run_len
    fill[0] = used
    if part == 0:
        vocab[0] = held
    return done


@njit(inline="always", **OPTIONS)
def run_hash(ids, lo, hi, n_ident, key_extra):
    h = _FNV_OFFSET
    for j in range(lo, hi):
        h = (h ^ np.uint64(model_id(ids[j], n_ident, key_extra) + 1)) * _FNV_PRIME
    return mix_hash(h)


@njit(**OPTIONS)
def find_run(ids, lo, hi, n_ident, key_extra, rtab, rhash, roff, pool, h):
    """The slot of ``rtab`` that holds the run ``ids[lo:hi]`` (as model tokens) or the empty one for it."""
    mask = rtab.size - 1
    s = np.int64(h & np.uint64(mask))
    n = hi - lo
    while True:
        r = rtab[s]
        if r < 0:
            return s
        if rhash[r] == h and roff[r + 1] - roff[r] == n:
            same = True
            base = roff[r]
            for j in range(n):
                if pool[base + j] != model_id(ids[lo + j], n_ident, key_extra):
                    same = False
                    break
            if same:
                return s
        s = (s + 1) & mask


@njit(**OPTIONS)
def lookup_run(ids, lo, hi, n_ident, key_extra, rtab, rhash, roff, pool):
    """The id (from 1) of the connector run ``ids[lo:hi]``, or ``-1`` if the model has none such."""
    for j in range(lo, hi):
        if model_id(ids[j], n_ident, key_extra) < 0:
            return -1
    s = find_run(ids, lo, hi, n_ident, key_extra, rtab, rhash, roff, pool, run_hash(ids, lo, hi, n_ident, key_extra))
    return rtab[s] + 1 if rtab[s] >= 0 else -1


@njit(**OPTIONS)
def intern_runs(ids, cut, n_ident, key_extra, conn_model, conn_extra, chunk, max_run, state, rtab, rhash, roff,
                pool, rstate, run_at):
    """Give every connector run of ``ids[:cut]`` between a start and a word an id (from 1), new ones
    appended to the run table; ``run_at[i]`` gets the id of the run before word ``i`` (0: none).

    The state machine is :func:`count_pairs`' (never across lines: runs are only used without
    ``cross_lines``); ``state`` is read, not updated.  ``rstate``: ``(runs, pool ids used)``; the
    caller keeps room for ``cut`` more runs and pool ids.
    """
    start = state[0]
    pos = state[1]
    run_len = state[2]
    nruns = rstate[0]
    used = rstate[1]
    for i in range(cut):
        t = ids[i]
        if t < 0:
            start = -1
            run_len = 0
            pos = 0
            continue
        if chunk > 0 and pos == chunk:
            start = -1
            run_len = 0
            pos = 0
        pos += 1
        if is_connector(t, n_ident, conn_model, conn_extra):
            if start >= 0:
                run_len += 1
                if run_len > max_run:
                    start = -1
                    run_len = 0
            continue
        run_at[i] = 0
        if start >= 0 and run_len > 0:
            lo = i - run_len
            h = run_hash(ids, lo, i, n_ident, key_extra)
            s = find_run(ids, lo, i, n_ident, key_extra, rtab, rhash, roff, pool, h)
            if rtab[s] < 0:
                rtab[s] = nruns
                rhash[nruns] = h
                for j in range(lo, i):
                    pool[used] = model_id(ids[j], n_ident, key_extra)
                    used += 1
                roff[nruns + 1] = used
                nruns += 1
            run_at[i] = rtab[s] + 1
        start = i
        run_len = 0
    rstate[0] = nruns
    rstate[1] = used


@njit(**OPTIONS)
def last_anchor_cut(ids, n, n_ident, conn_model, conn_extra, max_run):
    """Where a piece of ``n`` ids may end so that no connector run is cut: after its last word or
    sentence end (``n`` when the connectors after it are more than ``max_run``)."""
    i = n - 1
    while i >= 0 and n - 1 - i <= max_run:
        t = ids[i]
        if t < 0 or not is_connector(t, n_ident, conn_model, conn_extra):
            return i + 1
        i -= 1
    return n


@njit(inline="always", **OPTIONS)
def emit(ids, lo, hi, out, w, counts, count_out):
    """Copy ``ids[lo:hi]`` to ``out[w:]`` (counted with ``count_out``); return the new ``w``."""
    for j in range(lo, hi):
        out[w] = ids[j]
        if count_out:
            counts[ids[j]] += 1
        w += 1
    return w


@njit(**OPTIONS)
def join_phrases(ids, n, final, n_ident, key_extra, flags_model, flags_extra, chunk, max_run, table, table_filter,
                 phrase_out, rtab, rhash, roff, pool, state, out, counts, count_out):
    """Join the phrases of ``ids[:n]`` greedily from the left, as gensim's ``analyze_sentence``
    (and word2phrase, which has no connectors) does.

    A candidate ``(start, run, word)`` found in ``table`` (value: the phrase's index) becomes the
    one id ``phrase_out[index]``, and the next candidate starts after it.  The flags of stream id
    ``t`` (int8, ``flags_model[t]`` or ``flags_extra[t - n_ident]``, as the connector flags): 1,
    a connector; 2, its token starts a phrase; 4, it ends one.  Only such candidates are looked up.

    Parameters
    ----------
    table_filter : uint64[:]
        The filter of ``table`` (:func:`fill_filter`): most candidates that are not phrases miss
        it, and skip the probe of ``table`` (17M tokens: 0.32 s -> 0.20 s).
    final : bool
        ``ids`` ends the stream; otherwise the last start and the connectors after it are left
        for the next piece (they are not consumed).
    state : int64[1]
        Tokens of the current line so far, updated.
    out : int32[:]
        At least ``n`` long (may not be ``ids``).
    counts : int64[:]
        With ``count_out``, per stream id: incremented for every id written (sentence ends excepted).

    Returns
    -------
    (consumed, written)
    """
    # blocking: the greedy join needs the state machine, the run look-up and the output in one loop
    pos = state[0]
    start = -1         # position of the pending start in ids
    start_pos = 0      # the line position before it
    start_flags = 0    # its flags
    run_len = 0
    w = 0
    for i in range(n):
        t = ids[i]
        if t < 0:
            if start >= 0:
                w = emit(ids, start, i, out, w, counts, count_out)
            start = -1
            run_len = 0
            out[w] = t
            w += 1
            pos = 0
            continue
        if chunk > 0 and pos == chunk:
            if start >= 0:
                w = emit(ids, start, i, out, w, counts, count_out)
            start = -1
            run_len = 0
            pos = 0
        pos += 1
        f = flags_model[t] if t < n_ident else flags_extra[t - n_ident]
        if f & 1:
            if start < 0:
                w = emit(ids, i, i + 1, out, w, counts, count_out)
            else:
                run_len += 1
                if run_len > max_run:
                    w = emit(ids, start, i + 1, out, w, counts, count_out)
                    start = -1
                    run_len = 0
            continue
        if start >= 0:
            p = -1
            if (f & 4) and start_flags & 2:
                ka = np.int64(model_id(ids[start], n_ident, key_extra))
                kb = np.int64(model_id(t, n_ident, key_extra))
                run = 0
                if run_len > 0:
                    run = lookup_run(ids, start + 1, i, n_ident, key_extra, rtab, rhash, roff, pool)
                if run >= 0:
                    key = (ka << 32) | kb
                    h = pair_hash(key, run)
                    if may_hold(table_filter, h):
                        p = lookup(table, key, run, h)
            if p >= 0:
                out[w] = phrase_out[p]
                if count_out:
                    counts[phrase_out[p]] += 1
                w += 1
                start = -1
                run_len = 0
                continue
            w = emit(ids, start, i, out, w, counts, count_out)
        start = i
        start_pos = pos - 1
        start_flags = f
        run_len = 0
    consumed = n
    if start >= 0:
        if final:
            w = emit(ids, start, n, out, w, counts, count_out)
        else:
            consumed = start
            pos = start_pos
    state[0] = pos
    return consumed, w


@njit(**OPTIONS)
def insert_entries(table, keys, runs, values):
    """Insert entries that are not in ``table`` yet (a fresh or cleared table with room for them)."""
    for i in range(keys.size):
        put_slot(table, find_slot(table, keys[i], runs[i], pair_hash(keys[i], runs[i])), keys[i], runs[i],
                 values[i])


@njit(**OPTIONS)
def table_entries(table, min_value):
    """The entries of ``table`` whose value is at least ``min_value``: ``(keys, runs, values)``."""
    value_col = table.shape[1] - 1
    n = 0
    for s in range(table.shape[0]):
        if table[s, 0] != EMPTY and table[s, value_col] >= min_value:
            n += 1
    keys = np.empty(n, np.int64)
    runs = np.empty(n, np.int64)
    values = np.empty(n, np.int64)
    n = 0
    for s in range(table.shape[0]):
        if table[s, 0] != EMPTY and table[s, value_col] >= min_value:
            keys[n] = table[s, 0] - 1
            runs[n] = slot_run(table, s)
            values[n] = table[s, value_col]
            n += 1
    return keys, runs, values


@njit(**OPTIONS)
def rebuild_runs(rtab, rhash, roff, pool, nruns):
    """Insert runs ``0..nruns-1`` into the empty ``rtab`` (after it grew)."""
    mask = rtab.size - 1
    for r in range(nruns):
        s = np.int64(rhash[r] & np.uint64(mask))
        while rtab[s] >= 0:
            s = (s + 1) & mask
        rtab[s] = r


@njit(**OPTIONS)
def hash_runs(roff, pool, rhash):
    """``rhash`` of every run stored in ``roff``/``pool`` (a loaded model's)."""
    for r in range(roff.size - 1):
        h = _FNV_OFFSET
        for j in range(roff[r], roff[r + 1]):
            h = (h ^ np.uint64(pool[j] + 1)) * _FNV_PRIME
        rhash[r] = mix_hash(h)


@njit(**OPTIONS)
def pair_parts(keys, runs, nparts):
    """The partition of each pair ``(keys[i], runs[i])``."""
    out = np.empty(keys.size, np.int64)
    for i in range(keys.size):
        out[i] = part_of(pair_hash(keys[i], runs[i]), nparts)
    return out


@njit(**OPTIONS)
def intern_run(tokens, rtab, rhash, roff, pool, rstate):
    """The id (from 1) of the run of model tokens ``tokens``, added to the run table if new (the
    caller keeps room for one more run of ``tokens.size`` tokens)."""
    n_ident = np.int64(0x7FFFFFFF)   # every id is a model token
    extra = np.zeros(0, np.int32)
    h = run_hash(tokens, 0, tokens.size, n_ident, extra)
    s = find_run(tokens, 0, tokens.size, n_ident, extra, rtab, rhash, roff, pool, h)
    if rtab[s] < 0:
        r = rstate[0]
        used = rstate[1]
        rtab[s] = r
        rhash[r] = h
        for j in range(tokens.size):
            pool[used + j] = tokens[j]
        roff[r + 1] = used + tokens.size
        rstate[0] = r + 1
        rstate[1] = used + tokens.size
    return rtab[s] + 1


@njit(**OPTIONS)
def npmi_scores(pa, pb, pab, n_words, min_count, out):
    """gensim's ``npmi_scorer`` for each pair, with the C library's ``log`` as CPython's ``math.log``:
    ``log(pab / (pa * pb)) / -log(pab)`` of the probabilities, ``-inf`` below ``min_count``."""
    total = np.float64(n_words)
    for i in range(pab.size):
        if pab[i] >= min_count:
            a = pa[i] / total
            b = pb[i] / total
            ab = pab[i] / total
            out[i] = math.log(ab / (a * b)) / -math.log(ab)
        else:
            out[i] = -np.inf


@njit(**OPTIONS)
def first_seen(ids, order, state):
    """Number the ids of ``ids`` in order of first occurrence: ``order[t]`` (``-1`` until seen) gets
    ``state[0]``, which counts up."""
    nxt = state[0]
    for i in range(ids.size):
        t = ids[i]
        if t >= 0 and order[t] < 0:
            order[t] = nxt
            nxt += 1
    state[0] = nxt
