"""Kernels of the spilled vocabulary count: words as byte keys, partitioned, merged and looked up.

A scan whose counting tables outgrow their memory budget writes the words
of its table (a *generation*) to partition files and starts an empty table
(``w2v.text.counting``).  These kernels do the array work of that:

* :func:`key_hashes` hashes keys as :func:`~w2v.kernels.tokenize.split_tokens`
  hashes tokens, so a word keeps its hash (and partition) from the scan on;
* :func:`scatter_records` groups records by the bits of their hashes that
  pick their partition (a stable counting sort);
* :func:`invalid_utf8` flags the keys that are not UTF-8 (they are counted
  under the bytes of the word they decode to, as the in-memory scan merges
  them);
* :func:`gather_keys` copies keys in a given order (into a partition's
  block, or joined by ``\\n`` to decode them in one call);
* :func:`merge_keys` adds up the records of one partition by key: total
  counts, first occurrence, and which word each record is;
* :func:`find_keys` looks keys up in such a merged table (the words a scan
  must list whatever their counts);
* :func:`holds_replacement` flags keys that hold U+FFFD.
"""
import numpy as np
from numba import njit

from .prefetch import prefetch_item
from .tokenize import PREFETCH_ITEMS, bytes_hash, same_bytes

OPTIONS = dict(nogil=True, cache=True, error_model="numpy", boundscheck=False)

_LOW32 = np.int64(0xFFFFFFFF)


@njit(**OPTIONS)
def key_hashes(keys, starts, lens, out):
    """``out[i]``: the token hash (:func:`~w2v.kernels.tokenize.bytes_hash`) of ``keys[starts[i]:][:lens[i]]``."""
    for i in range(lens.size):
        out[i] = bytes_hash(keys, starts[i], lens[i])


@njit(**OPTIONS)
def scatter_records(hashes, shift, n_parts, keys, starts, lens, local, counts, out_lens, out_local, out_counts,
                    out_keys, bounds, key_bounds):
    """Group records by partition ``(hashes >> shift) & (n_parts - 1)``, keeping their order within one.

    One pass reads the records in order (the keys where they lie, one after
    the other) and appends each to its partition's part of the outputs: the
    reads are sequential and the writes go to ``n_parts`` sequential streams,
    where ordering the records first and gathering them would read the keys
    at random (4.7 of a 26 s scan of 10M distinct words).

    Parameters
    ----------
    hashes : uint64[:]
    shift, n_parts : int
    keys : uint8[:]
    starts, lens : int64[:]
        Record ``i``'s key is ``keys[starts[i]:][:lens[i]]``.
    local, counts : arrays
        Per record, copied along.
    out_lens, out_local, out_counts : arrays
        As many as the records: the records partition by partition.
    out_keys : uint8[:]
        ``lens.sum()`` bytes: the keys in the same order.
    bounds, key_bounds : int64[:]
        ``n_parts + 1``: where each partition's records (and their keys) begin, and the end.
    """
    mask = np.uint64(n_parts - 1)
    sh = np.uint64(shift)
    bounds[:] = 0
    key_bounds[:] = 0
    for i in range(hashes.size):
        p = np.int64((hashes[i] >> sh) & mask) + 1
        bounds[p] += 1
        key_bounds[p] += lens[i]
    for p in range(n_parts):
        bounds[p + 1] += bounds[p]
        key_bounds[p + 1] += key_bounds[p]
    fill = bounds[:n_parts].copy()
    key_fill = key_bounds[:n_parts].copy()
    for i in range(hashes.size):
        p = np.int64((hashes[i] >> sh) & mask)
        j = fill[p]
        fill[p] += 1
        out_lens[j] = lens[i]
        out_local[j] = local[i]
        out_counts[j] = counts[i]
        k = key_fill[p]
        s = starts[i]
        for t in range(lens[i]):
            out_keys[k + t] = keys[s + t]
        key_fill[p] = k + lens[i]


@njit(**OPTIONS)
def invalid_utf8(keys, starts, lens, out):
    """``out[i]``: whether key ``i`` is not valid UTF-8 (what Python's strict decoder refuses: stray
    continuation bytes, overlong forms, surrogates, code points past U+10FFFF, cut sequences).
    Return how many are not."""
    bad = 0
    for i in range(lens.size):
        p = starts[i]
        end = p + lens[i]
        ok = True
        while p < end:
            b = keys[p]
            if b < 0x80:
                p += 1
                continue
            if 0xC2 <= b <= 0xDF:
                n, lo, hi = 1, 0x80, 0xBF
            elif b == 0xE0:
                n, lo, hi = 2, 0xA0, 0xBF
            elif b == 0xED:
                n, lo, hi = 2, 0x80, 0x9F
            elif 0xE1 <= b <= 0xEF:
                n, lo, hi = 2, 0x80, 0xBF
            elif b == 0xF0:
                n, lo, hi = 3, 0x90, 0xBF
            elif b == 0xF4:
                n, lo, hi = 3, 0x80, 0x8F
            elif 0xF1 <= b <= 0xF3:
                n, lo, hi = 3, 0x80, 0xBF
            else:
                ok = False
                break
            if p + n >= end:          # the sequence is cut off by the key's end
                ok = False
                break
            c = keys[p + 1]
            if c < lo or c > hi:
                ok = False
                break
            for k in range(2, n + 1):
                c = keys[p + k]
                if c < 0x80 or c > 0xBF:
                    ok = False
                    break
            if not ok:
                break
            p += n + 1
        out[i] = not ok
        if not ok:
            bad += 1
    return bad


@njit(**OPTIONS)
def gather_keys(order, starts, lens, keys, out, separator):
    """Copy keys ``order`` (indices into ``starts``/``lens``) one after the other into ``out``, each
    followed by the byte ``separator`` unless it is negative.  Return the bytes written."""
    n = 0
    for j in range(order.size):
        i = order[j]
        s = starts[i]
        for t in range(lens[i]):
            out[n + t] = keys[s + t]
        n += lens[i]
        if separator >= 0:
            out[n] = separator
            n += 1
    return n


@njit(**OPTIONS)
def merge_keys(keys, starts, lens, counts, firsts, table, word_record, word_count, word_first, record_word):
    """Add up records by key: the merge of one partition.

    Parameters
    ----------
    keys : uint8[:]
        The keys' bytes; record ``i``'s key is ``keys[starts[i]:][:lens[i]]``.
    starts, lens : int64[:]
    counts : int64[:]
        Per record, its count.
    firsts : int64[:]
        Per record, where it was first seen (smaller is earlier).
    table : int64[:]
        Empty (``-1``), a power of two at least twice the records:
        ``(high 31 bits of the hash) << 32 | word``.
    word_record : int64[:]
        Out, per merged word: a record that holds its key.
    word_count, word_first : int64[:]
        Out, per merged word: its total count and its earliest ``firsts``.
    record_word : int32[:]
        Out, per record: its merged word.

    Returns
    -------
    int
        The merged words.
    """
    # the hashes first, so that the probe loop can prefetch the table slot PREFETCH_ITEMS records on
    n = lens.size
    mask = table.size - 1
    hashes = np.empty(n, np.uint64)
    for i in range(n):
        hashes[i] = bytes_hash(keys, starts[i], lens[i])
    nw = 0
    for i in range(n):
        ahead = i + PREFETCH_ITEMS
        if ahead < n:
            prefetch_item(table, np.int64(hashes[ahead] & np.uint64(mask)))
        length = lens[i]
        start = starts[i]
        h = hashes[i]
        tag = np.int64(h >> np.uint64(33))
        slot = np.int64(h & np.uint64(mask))
        w = -1
        while True:
            e = table[slot]
            if e < 0:
                break
            if (e >> 32) == tag:
                cand = e & _LOW32
                r = word_record[cand]
                if lens[r] == length and same_bytes(keys, starts[r], keys, start, length):
                    w = cand
                    break
            slot = (slot + 1) & mask
        if w < 0:
            w = nw
            nw += 1
            table[slot] = (tag << 32) | w
            word_record[w] = i
            word_count[w] = 0
            word_first[w] = firsts[i]
        word_count[w] += counts[i]
        if firsts[i] < word_first[w]:
            word_first[w] = firsts[i]
        record_word[i] = w
    return nw


@njit(**OPTIONS)
def find_keys(keys, starts, lens, which, table, known_keys, known_starts, known_lens, found):
    """``found[j]``: whether key ``which[j]`` is one of the known keys, whose table is ``table``
    (built by :func:`merge_keys` over the known keys, all distinct, so that word ``w`` is known key
    ``w``)."""
    mask = table.size - 1
    for j in range(which.size):
        i = which[j]
        length = lens[i]
        h = bytes_hash(keys, starts[i], length)
        tag = np.int64(h >> np.uint64(33))
        slot = np.int64(h & np.uint64(mask))
        hit = False
        while True:
            e = table[slot]
            if e < 0:
                break
            if (e >> 32) == tag:
                r = e & _LOW32
                if known_lens[r] == length and same_bytes(known_keys, known_starts[r], keys, starts[i], length):
                    hit = True
                    break
            slot = (slot + 1) & mask
        found[j] = hit


@njit(**OPTIONS)
def holds_replacement(keys, starts, lens, out):
    """``out[i]``: whether key ``i`` holds U+FFFD (the bytes EF BF BD)."""
    for i in range(lens.size):
        s = starts[i]
        hit = False
        for p in range(s, s + lens[i] - 2):
            if keys[p] == 0xEF and keys[p + 1] == 0xBF and keys[p + 2] == 0xBD:
                hit = True
                break
        out[i] = hit
