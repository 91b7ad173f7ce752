"""Byte-level whitespace tokenizer and counter: the corpus scan without Python strings.

The scan has two stages, so that two threads can share it (one splits a
buffer while the other counts the previous one; see ``w2v.text.scanning``):

* :func:`split_tokens` splits a buffer of UTF-8 bytes at whitespace and
  hashes every token (8 bytes at a time, then murmur3's finalizer);
* :func:`count_tokens` looks every token up in an open-addressing hash table
  of the words seen so far (linear probing), gives new words the next
  provisional id, counts, and writes the id stream with ``-1`` for every
  ``\\n``.

Together they are the same tokenization as ``line.split()`` for each
``\\n``-separated line of the text decoded with ``errors="replace"``:

* whitespace is every character ``str.isspace()`` accepts: the ASCII ones and
  the multi-byte ones (NEL, NO-BREAK SPACE, OGHAM SPACE MARK, U+2000..200A,
  LINE/PARAGRAPH SEPARATOR, NARROW NO-BREAK SPACE, MEDIUM MATHEMATICAL SPACE,
  IDEOGRAPHIC SPACE), recognised by their UTF-8 byte sequences.  A multi-byte
  whitespace starts with a lead byte, and a decoder always restarts at a lead
  byte, so an invalid sequence before it cannot swallow it;
* tokens keep their raw bytes; the caller decodes each distinct word once
  with ``errors="replace"`` and merges words that decode to the same string.

Python only reads chunks and grows the arrays (:class:`TokenItems`,
:class:`ByteVocabulary`); the stages themselves run at tens of millions of
tokens per second.
"""
import numpy as np
from numba import njit

from .prefetch import prefetch_item
from .words64 import first_flagged_byte, load8

OPTIONS = dict(nogil=True, cache=True, error_model="numpy", boundscheck=False)

PREFETCH_ITEMS = 16   # how far ahead count_tokens prefetches table slots

_HASH_SEED = np.uint64(0xCBF29CE484222325)
_WORD_PRIME = np.uint64(0x9E3779B97F4A7C15)    # odd: a step of the token hash is a bijection
_HIGH_BITS = np.uint64(0x8080808080808080)
_BELOW_SPACE = np.uint64(0x2121212121212121)   # w - this flags the bytes below 0x21 (and maybe some above them)

# ASCII whitespace of str.isspace(): \t \n \v \f \r, the four separators 0x1c-0x1f, space
ASCII_SPACE = np.zeros(128, np.bool_)
ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True


@njit(**OPTIONS)
def space_length(buf, i, n, final):
    """Bytes of the whitespace character at ``buf[i]``: 0 if none, -1 if the buffer
    ends inside what could be one (only when not ``final``)."""
    b = buf[i]
    if b < 0x80:
        return 1 if ASCII_SPACE[b] else 0
    if b == 0xC2:                                    # U+0085, U+00A0
        if i + 1 >= n:
            return 0 if final else -1
        c = buf[i + 1]
        return 2 if (c == 0x85 or c == 0xA0) else 0
    if b == 0xE1 or b == 0xE2 or b == 0xE3:
        if i + 2 >= n:
            if final:
                return 0
            # a prefix of a 3-byte space only if the bytes so far match one
            if i + 1 < n:
                c = buf[i + 1]
                if not ((b == 0xE1 and c == 0x9A) or (b == 0xE2 and (c == 0x80 or c == 0x81))
                        or (b == 0xE3 and c == 0x80)):
                    return 0
            return -1
        c = buf[i + 1]
        d = buf[i + 2]
        if b == 0xE1:                                # U+1680
            return 3 if (c == 0x9A and d == 0x80) else 0
        if b == 0xE3:                                # U+3000
            return 3 if (c == 0x80 and d == 0x80) else 0
        if c == 0x80:                                # U+2000..200A, U+2028, U+2029, U+202F
            return 3 if (d <= 0x8A and d >= 0x80) or d == 0xA8 or d == 0xA9 or d == 0xAF else 0
        if c == 0x81:                                # U+205F
            return 3 if d == 0x9F else 0
        return 0
    return 0


_LOW32 = np.int64(0xFFFFFFFF)
_MIX1 = np.uint64(0xFF51AFD7ED558CCD)
_MIX2 = np.uint64(0xC4CEB9FE1A85EC53)


@njit(**OPTIONS)
def mix_hash(h):
    """Spread a multiplicative hash's bits (murmur3's finalizer): the low bits of a
    product depend only on the low bits of its factors, and the slot is taken
    from the low bits."""
    h ^= h >> np.uint64(33)
    h *= _MIX1
    h ^= h >> np.uint64(33)
    h *= _MIX2
    h ^= h >> np.uint64(33)
    return h


@njit(inline="always", **OPTIONS)
def hash_step(h, word):
    """One step of the token hash: the next 8 bytes of the token, as a little-endian word (the
    shift carries a word's top byte down, so that it meets the next word's low bytes)."""
    h = (h ^ word) * _WORD_PRIME
    return h ^ (h >> np.uint64(29))


@njit(inline="always", **OPTIONS)
def hash_end(h, length):
    """The token hash of ``length`` bytes hashed into ``h``."""
    return mix_hash(h ^ np.uint64(length))


@njit(inline="always", **OPTIONS)
def low_bytes(count):
    """The mask of the low ``count`` bytes of a uint64 (``count`` from 0 to 7)."""
    return (np.uint64(1) << np.uint64(8 * count)) - np.uint64(1)


@njit(inline="always", **OPTIONS)
def bytes_word(data, start, count):
    """The ``count`` (at most 8) bytes ``data[start:start + count]`` as a little-endian word, one
    byte at a time (where a word load could pass the end of ``data``)."""
    word = np.uint64(0)
    for t in range(count):
        word |= np.uint64(data[start + t]) << np.uint64(8 * t)
    return word


@njit(**OPTIONS)
def bytes_hash(data, start, length):
    """The hash :func:`split_tokens` gives the token ``data[start:start + length]``: its bytes 8 at a
    time as little-endian words (the last one padded with zeros), then its length."""
    h = _HASH_SEED
    for k in range(0, length, 8):
        h = hash_step(h, bytes_word(data, start + k, min(8, length - k)))
    return hash_end(h, length)


@njit(inline="always", **OPTIONS)
def ends_token(buf, p, n, final):
    """Whether the byte at ``buf[p]`` starts whitespace (1), does not (0), or may (-1: the buffer
    ends inside what could be a multi-byte space)."""
    c = buf[p]
    if c < 0x80:
        return 1 if ASCII_SPACE[c] else 0
    k = space_length(buf, p, n, final)
    return 1 if k > 0 else k


@njit(inline="always", **OPTIONS)
def token_end(buf, i, n, final):
    """The end of the token that starts at ``buf[i]`` (not whitespace) and its hash
    (:func:`bytes_hash`, before :func:`hash_end`): ``(end, h)``, ``end`` -1 when the token may go
    on past ``buf[:n]``.

    A word of 8 bytes at a time: the bytes that could start whitespace (below 0x21, or a lead byte)
    are flagged at once and only those are checked (17M-token wiki slice: 0.39 s -> 0.31 s).
    """
    h = _HASH_SEED
    w0 = i          # the word of the token being read
    while w0 + 8 <= n:
        word = load8(buf, w0)
        flags = (((word - _BELOW_SPACE) & ~word) | word) & _HIGH_BITS
        if w0 == i:
            flags &= ~np.uint64(0xFF)   # the first byte is the token's
        while flags:
            p = w0 + np.int64(first_flagged_byte(flags))
            k = ends_token(buf, p, n, final)
            if k > 0:
                if p > w0:
                    h = hash_step(h, word & low_bytes(p - w0))
                return p, h
            if k < 0:
                return -1, h
            flags &= flags - np.uint64(1)
        h = hash_step(h, word)
        w0 += 8
    p = w0 if w0 > i else i + 1   # fewer than 8 bytes before n: one at a time
    while p < n:
        k = ends_token(buf, p, n, final)
        if k > 0:
            break
        if k < 0:
            return -1, h
        p += 1
    if p == n and not final:
        return -1, h
    if p > w0:
        h = hash_step(h, bytes_word(buf, w0, p - w0))
    return p, h


@njit(**OPTIONS)
def split_tokens(buf, n, final, starts, lens, hashes):
    """Split ``buf[:n]`` at whitespace and hash every token: the first stage of the scan.

    Parameters
    ----------
    buf : uint8[:]
    n : int
        Bytes of ``buf`` to scan.
    final : bool
        ``buf`` ends the input: its last token is complete.  Otherwise the
        split stops before a token (or whitespace character) that may continue
        in the next buffer; the caller carries those bytes over.
    starts, lens : int32[:]
        At least ``n`` long: per item, the token's first byte and its length,
        or (length ``-1``) the position of a ``\\n``.
    hashes : uint64[:]
        At least ``n`` long: per token, its hash (:func:`bytes_hash`).

    Returns
    -------
    (consumed, items) : bytes of ``buf`` done and items written.
    """
    i = 0
    items = 0
    consumed = 0
    while i < n:
        b = buf[i]
        if b < 0x80:                 # ASCII: the common case, decided inline
            k = 1 if ASCII_SPACE[b] else 0
        else:
            k = space_length(buf, i, n, final)
        if k < 0:
            break
        if k > 0:
            if b == 10:
                starts[items] = i
                lens[items] = -1
                hashes[items] = 0
                items += 1
            i += k
            consumed = i
            continue
        end, h = token_end(buf, i, n, final)
        if end < 0:
            break
        starts[items] = i
        lens[items] = end - i
        hashes[items] = hash_end(h, end - i)
        items += 1
        i = end
        consumed = end
    return consumed, items


@njit(inline="always", **OPTIONS)
def same_bytes(a, i, b, j, length):
    """Whether ``a[i:i + length]`` and ``b[j:j + length]`` hold the same bytes: 8 at a time, and the
    last up to 8 in one masked compare where both arrays go on that far."""
    t = 0
    while t + 8 <= length:
        if load8(a, i + t) != load8(b, j + t):
            return False
        t += 8
    rest = length - t
    if rest == 0:
        return True
    if i + t + 8 <= a.size and j + t + 8 <= b.size:
        return (load8(a, i + t) ^ load8(b, j + t)) & low_bytes(rest) == 0
    for k in range(t, length):
        if a[i + k] != b[j + k]:
            return False
    return True


@njit(**OPTIONS)
def count_tokens(buf, starts, lens, hashes, first, items, table, words, arena, counts, state, out):
    """Look up (or add) the tokens of :func:`split_tokens`, count them and write their ids.

    Parameters
    ----------
    buf : uint8[:]
        The buffer the items point into.
    starts, lens, hashes : arrays
        From :func:`split_tokens`.
    first, items : int
        The items to do: ``first`` up to ``items``.
    table : int64[:]
        Hash slots, size a power of two: ``-1`` empty, else
        ``(high 31 bits of the hash) << 32 | id``, so a probe reads one entry.
        Kept at most a quarter full.
    words : int64[:, 2]
        Per provisional id: start and length of its bytes in ``arena``.
    arena : uint8[:]
        The bytes of every word, each followed by ``\\n`` (so that the whole
        arena decodes in one call and splits into the words).
    counts : int64[:]
        Per provisional id.
    state : int64[3]
        ``[words, arena bytes used, newlines seen]``, updated.
    out : int32[:]
        At least ``items - first`` long: receives the ids, ``-1`` for each
        ``\\n``.  May be ``lens[first:]`` itself (each id is written after its
        item's length is read, at a position no further on).

    Returns
    -------
    (done, written) : the first item not done (``items`` unless ``table``,
    ``words`` or ``arena`` must grow first: the caller grows them and goes
    on from there) and ids written to ``out``.
    """
    # blocking: the probe loop is software-pipelined (the slot of a later item is prefetched while
    # this one is compared), which needs the whole lookup, insertion and count in one loop
    mask = table.size - 1
    nw = state[0]
    used = state[1]
    lines = state[2]
    nout = 0
    q = first
    while q < items:
        # the hashes are known ahead: start loading the table slot PREFETCH_ITEMS items on
        ahead = q + PREFETCH_ITEMS
        if ahead < items:
            prefetch_item(table, np.int64(hashes[ahead] & np.uint64(mask)))
        length = np.int64(lens[q])
        if length < 0:
            out[nout] = -1
            nout += 1
            lines += 1
            q += 1
            continue
        i = np.int64(starts[q])
        h = hashes[q]
        tag = np.int64(h >> np.uint64(33))   # 31 bits: entries stay >= 0
        slot = np.int64(h & np.uint64(mask))
        wid = -1
        while True:
            e = table[slot]
            if e < 0:
                break
            if (e >> 32) == tag:
                cand = e & _LOW32
                if words[cand, 1] == length:
                    same = same_bytes(arena, words[cand, 0], buf, i, length)
                    if same:
                        wid = cand
                        break
            slot = (slot + 1) & mask
        if wid < 0:
            if 4 * (nw + 1) > table.size or nw >= words.shape[0] or used + length + 1 > arena.size:
                break
            wid = nw
            nw += 1
            table[slot] = (tag << 32) | wid
            words[wid, 0] = used
            words[wid, 1] = length
            counts[wid] = 0
            for t in range(length):
                arena[used + t] = buf[i + t]
            arena[used + length] = 10
            used += length + 1
        counts[wid] += 1
        out[nout] = wid
        nout += 1
        q += 1
    state[0] = nw
    state[1] = used
    state[2] = lines
    return q, nout


class TokenItems:
    """The reusable arrays of :func:`split_tokens` and :func:`count_tokens`.

    16 bytes per byte of buffer (int32 starts and lengths, uint64 hashes; the
    ids are written over the lengths), so a buffer is at most 2 GiB.
    """

    MAX_BUFFER = 2 ** 31 - 1

    def __init__(self, capacity=0):
        self.resize(capacity)

    def resize(self, n):
        """Make room for a buffer of ``n`` bytes (at most ``n`` items)."""
        self.starts = np.empty(n, np.int32)
        self.lens = np.empty(n, np.int32)
        self.hashes = np.empty(n, np.uint64)

    @property
    def ids(self):
        """Where :func:`count_tokens` writes the ids: over ``lens`` (item ``q``'s id goes
        to a position ``<= q``, after its length was read)."""
        return self.lens

    def reserve(self, n):
        """Room for a buffer of ``n`` bytes, and some for the carry of the next chunks."""
        if n > self.MAX_BUFFER:
            raise ValueError(f"a scan buffer of {n:,} bytes (at most {self.MAX_BUFFER:,})")
        if self.starts.size < n:
            self.resize(min(n + n // 8, self.MAX_BUFFER))

    def split(self, buf, n, final):
        """:func:`split_tokens` of ``buf[:n]``: return ``(consumed, items)``."""
        self.reserve(n)
        return split_tokens(buf, n, final, self.starts, self.lens, self.hashes)


class ByteVocabulary:
    """The growing arrays of :func:`count_tokens`, resized in Python between calls.

    Parameters
    ----------
    capacity : int
        Words the first arrays hold.
    limit : int, optional
        Bytes the arrays may take in all, counting both the old and the new
        array while one grows (default: no limit).  The first arrays are
        made small enough to fit; :meth:`grow` refuses to pass it, and
        :meth:`count` then calls its ``on_full`` (which empties the
        vocabulary: :meth:`reset`).
    """

    MIN_CAPACITY = 1 << 6
    ARENA_BYTES = 1 << 20      # the first arena (at most a quarter of the limit)

    def __init__(self, capacity=1 << 15, limit=None):
        arena = self.ARENA_BYTES
        if limit is not None:
            arena = max(64, min(arena, limit // 4))
            while capacity > self.MIN_CAPACITY and 40 * capacity + arena > limit:
                capacity //= 2
        self.limit = limit
        self.table = np.full(2 * capacity, -1, np.int64)
        self.words_meta = np.zeros((capacity, 2), np.int64)
        self.counts = np.zeros(capacity, np.int64)
        self.arena = np.zeros(arena, np.uint8)
        self.state = np.zeros(3, np.int64)   # words, arena bytes, newlines

    @property
    def size(self):
        return int(self.state[0])

    @property
    def allocated(self):
        """Bytes of the arrays."""
        return self.table.nbytes + self.words_meta.nbytes + self.counts.nbytes + self.arena.nbytes

    def grow(self, pending, force=False):
        """Double whatever :func:`count_tokens` found full; the arena gets room for
        ``pending`` more bytes (any one token fits).  Return whether it grew: not
        when the new arrays and the old ones would pass the limit (unless ``force``)."""
        nw, used = int(self.state[0]), int(self.state[1])
        more_words = nw >= self.words_meta.shape[0]
        more_slots = 4 * (nw + 1) > self.table.size
        more_bytes = used + pending + 1 > self.arena.size
        arena_size = max(2 * self.arena.size, used + pending + 1) if more_bytes else self.arena.size
        if self.limit is not None and not force:
            # the new arrays while the old ones are still there (the old table is freed first)
            new = (48 * self.counts.size if more_words else 0) + (8 * self.table.size if more_slots else 0) \
                + (arena_size if more_bytes else 0)
            if self.allocated + new > self.limit:
                return False
        if more_words:
            meta = np.zeros((2 * self.words_meta.shape[0], 2), np.int64)
            meta[:nw] = self.words_meta[:nw]
            self.words_meta = meta
            counts = np.zeros(meta.shape[0], np.int64)
            counts[:nw] = self.counts[:nw]
            self.counts = counts
        if more_slots:
            size = 2 * self.table.size
            self.table = None   # the old table is not needed to build the new one
            self.table = np.full(size, -1, np.int64)
            rebuild_table(self.table, self.words_meta, self.arena, nw)
        if more_bytes:
            arena = np.zeros(arena_size, np.uint8)
            arena[:used] = self.arena[:used]
            self.arena = arena
        return True

    def reset(self):
        """Empty the vocabulary, keeping its arrays (and the count of newlines seen)."""
        self.table.fill(-1)
        self.state[0] = 0
        self.state[1] = 0

    def count(self, buf, items, n_items, on_full=None):
        """Count all ``n_items`` of ``items`` (see :func:`count_tokens`), growing as
        needed; the ids land in ``items.ids``.  Return ``(written, newlines)``.

        When the arrays cannot grow within the limit, ``on_full(written)`` is
        called with the ids written so far and must empty the vocabulary
        (:meth:`reset`); the items after go on in the emptied one.  Without
        ``on_full``, or when even the emptied arrays are too small for the next
        token, they grow past the limit."""
        lines_before = int(self.state[2])
        done = 0
        written = 0
        while True:
            done, w = count_tokens(buf, items.starts, items.lens, items.hashes, done, n_items, self.table,
                                   self.words_meta, self.arena, self.counts, self.state,
                                   items.ids[written:])
            written += w
            if done == n_items:
                return written, int(self.state[2]) - lines_before
            pending = int(items.lens[done])
            if self.grow(pending):
                continue
            if on_full is None or self.size == 0:
                self.grow(pending, force=True)
            else:
                on_full(written)

    def count_sentences(self, buf, items, sentence_lens, out):
        """:func:`count_sentences` of ``buf`` (the tokens of sentences of ``sentence_lens`` tokens,
        joined by single spaces), growing as needed.  Return whether the tokens were those sentences'
        (then ``out`` holds their ids with ``-1`` after each sentence)."""
        items.reserve(buf.size)
        first = written = 0
        while True:
            status, first, written = count_sentences(buf, sentence_lens, first, written, items.starts, items.lens,
                                                     items.hashes, self.table, self.words_meta, self.arena,
                                                     self.counts, self.state, out)
            if status <= 0:
                return status == 0
            self.grow(int(items.lens[first]))

    def words(self):
        """Decode every word once (``errors="replace"``), in provisional-id order."""
        if self.size == 0:
            return []
        text = self.arena[:self.state[1]].tobytes().decode("utf-8", "replace")
        words = text.split("\n")
        words.pop()       # the text ends with a separator
        return words


@njit(**OPTIONS)
def rebuild_table(table, words, arena, nw):
    """Insert ids ``0..nw-1`` into the empty ``table``, hashing their bytes again."""
    mask = table.size - 1
    for w in range(nw):
        h = bytes_hash(arena, words[w, 0], words[w, 1])
        slot = np.int64(h & np.uint64(mask))
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = (np.int64(h >> np.uint64(33)) << 32) | w


@njit(**OPTIONS)
def count_sentences(buf, sentence_lens, first, written, starts, lens, hashes, table, words, arena, counts, state,
                    out):
    """Split, check and count the tokens of sentences joined by single spaces, in one call without the GIL.

    ``buf`` holds the tokens of sentences of ``sentence_lens`` tokens joined by
    single spaces.  It is split (:func:`split_tokens`) and checked to give back
    exactly those tokens: as many, none empty, each followed by exactly one
    space (a token that held whitespace or was empty fails); then counted
    (:func:`count_tokens`) and written to ``out`` with ``-1`` after each
    sentence.

    Returns
    -------
    (status, first, written)
        ``status`` 0: done; -1: the split does not give the sentences' tokens
        (nothing counted); 1: the vocabulary's arrays must grow before item
        ``first`` (``written`` ids so far): call again with these.
    """
    ntok = 0
    for n in sentence_lens:
        ntok += n
    if first == 0 and written == 0:
        _, items = split_tokens(buf, buf.size, True, starts, lens, hashes)
        if items != ntok:
            return -1, 0, 0
        pos = 0
        for q in range(items):
            if lens[q] <= 0 or starts[q] != pos:
                return -1, 0, 0
            pos = starts[q] + lens[q] + 1
        if pos - 1 != buf.size and buf.size > 0:
            return -1, 0, 0
    done, w = count_tokens(buf, starts, lens, hashes, first, ntok, table, words, arena, counts, state,
                           lens[written:])
    written += w
    if done < ntok:
        return 1, done, written
    k = ntok + sentence_lens.size
    j = ntok
    for i in range(sentence_lens.size - 1, -1, -1):
        k -= 1
        out[k] = -1
        for _ in range(sentence_lens[i]):
            k -= 1
            j -= 1
            out[k] = lens[j]
    return 0, done, written
