"""Corpus shards: byte ranges of plain files (cut at whitespace) or whole compressed files.

Distributed training (:mod:`w2v.distributed`) splits the corpus into shards
that workers read independently.  A plain file is cut into byte ranges whose
ends are aligned *by the reader*, deterministically: :func:`align_offset`
moves a nominal cut to just after the first newline found within
:data:`ALIGN_WINDOW` bytes (so that a shard normally starts a sentence), or
else just after the first ASCII whitespace byte.  Two neighbouring shards
compute the same aligned cut from the same nominal offset, so every byte
belongs to exactly one shard and no token is ever split: the tokens of all
shards, in shard order, are exactly the tokens :func:`w2v.text.scanning.iter_token_lines`
reads from the whole file (an ASCII whitespace byte is never part of a
multi-byte UTF-8 character, and every tokenizer splits at it).  The only
difference is a sentence boundary at a cut that had to fall inside a line.

Compressed inputs (``.gz``, ``.bz2``, ``.xz``) cannot be cut and are whole-file shards.
"""
import codecs
import dataclasses
import itertools
import os
from collections import defaultdict

import numpy as np

from .scanning import DEFAULT_CHUNK_CHARS, open_text, read_chunks, resolve_inputs, token_pieces
from .encoded import SENTINEL, id_table, remap_ids
from ..errors import CorpusError
from ..util.opener import compression_of, replaced_sequences

ALIGN_WINDOW = 1 << 16           # bytes searched for a newline after a nominal cut
DEFAULT_SHARD_BYTES = 64 << 20   # largest byte range of one shard
MIN_SHARD_BYTES = 64 << 10       # smallest shard plan_shards cuts to reach min_shards
_WHITESPACE = b" \t\n\r\x0b\x0c"


@dataclasses.dataclass(frozen=True)
class Shard:
    """A piece of the corpus: ``path`` from nominal byte ``start`` to nominal byte ``end``.

    ``end`` is ``None`` for a whole file (compressed inputs).  Nominal offsets
    are aligned at read time with :func:`align_offset`.
    """

    path: str
    start: int = 0
    end: int = None
    size: int = 0  # bytes on disk covered (for balancing)

    def __str__(self):
        if self.end is None:
            return self.path
        return f"{self.path}[{self.start}:{self.end}]"


def is_compressed(path):
    """Whether ``path`` is read through a decompressor (then it is one shard, not byte ranges)."""
    try:
        return compression_of(path) is not None
    except OSError as exc:
        raise CorpusError(f"cannot open corpus {path}: {exc.strerror or exc}") from None


def plan_shards(paths, shard_bytes=DEFAULT_SHARD_BYTES, min_shards=1):
    """Cut the corpus into shards of at most ``shard_bytes`` bytes each.

    Parameters
    ----------
    paths : str or list of str
        Files or directories (standard input cannot be sharded).
    shard_bytes : int
        Largest nominal byte range of a plain-file shard.
    min_shards : int
        Cut plain files finer so that at least this many shards exist, when
        the corpus is big enough: the nominal shard size does not fall below
        64 KiB for it (a file is cut into equal parts of at most that size,
        which can be a little smaller).

    Returns
    -------
    list of Shard
        In corpus order.
    """
    files = resolve_inputs(paths)
    if "-" in files:
        raise CorpusError("standard input cannot be used for distributed training: "
                          "pass files on a filesystem the workers can read")
    sizes = []
    for f in files:
        try:
            sizes.append(os.path.getsize(f))
        except OSError as exc:
            raise CorpusError(f"cannot read corpus {f}: {exc.strerror}") from None
    plain_total = sum(s for f, s in zip(files, sizes) if not is_compressed(f))
    if min_shards > 1 and plain_total:
        n_fixed = sum(1 for f in files if is_compressed(f))
        want = max(1, min_shards - n_fixed)
        shard_bytes = min(shard_bytes, max(MIN_SHARD_BYTES, -(-plain_total // want)))
    shard_bytes = max(1, int(shard_bytes))
    shards = []
    for f, size in zip(files, sizes):
        if is_compressed(f) or size == 0:
            shards.append(Shard(f, 0, None, size))
            continue
        n = max(1, -(-size // shard_bytes))
        cuts = [size * i // n for i in range(n + 1)]
        for a, b in zip(cuts[:-1], cuts[1:]):
            shards.append(Shard(f, a, b, b - a))
    return shards


def align_offset(fh, nominal, size):
    """Move a nominal cut to a whitespace boundary (see the module docstring).

    Parameters
    ----------
    fh : binary file object opened on the file
    nominal : int
    size : int
        File size.

    Returns
    -------
    int
        An offset in ``[nominal, size]`` just after a whitespace byte (or 0 / ``size``).
    """
    if nominal <= 0:
        return 0
    if nominal >= size:
        return size
    pos = nominal - 1
    fh.seek(pos)
    window = fh.read(ALIGN_WINDOW)
    nl = window.find(b"\n")
    if nl >= 0:
        return pos + nl + 1
    # no newline nearby (text8-style single line): the first whitespace byte at or after pos
    while True:
        best = -1
        for ch in _WHITESPACE:
            i = window.find(bytes((ch,)))
            if i >= 0 and (best < 0 or i < best):
                best = i
        if best >= 0:
            return pos + best + 1
        pos += len(window)
        if pos >= size:
            return size
        window = fh.read(ALIGN_WINDOW)
        if not window:
            return size


class _RangeReader:
    """Binary reads of ``[start, end)`` of a file, for ``io.TextIOWrapper``-like decoding."""

    def __init__(self, fh, start, end):
        self.fh = fh
        self.fh.seek(start)
        self.left = end - start

    def read(self, n):
        if self.left <= 0:
            return b""
        data = self.fh.read(min(n, self.left))
        self.left -= len(data)
        return data


def _open_shard_text(shard, chunk_bytes):
    """Yield decoded text chunks of a shard (whole files through :func:`open_text`)."""
    if shard.end is None:
        fh = open_text(shard.path)
        try:
            yield from read_chunks(fh, shard.path, chunk_bytes)
        finally:
            fh.close()
        return
    try:
        fh = open(shard.path, "rb", buffering=0)
    except OSError as exc:
        raise CorpusError(f"cannot open corpus {shard.path}: {exc.strerror or exc}") from None
    try:
        size = os.fstat(fh.fileno()).st_size
        start = align_offset(fh, shard.start, size)
        end = align_offset(fh, shard.end, size)
        if end <= start:
            return
        reader = _RangeReader(fh, start, end)
        # as open_text: each undecodable sequence becomes U+FFFD and is counted (replaced_sequences)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="w2v.replace")
        while True:
            raw = reader.read(chunk_bytes)
            text = decoder.decode(raw, final=not raw)
            if text:
                yield text
            if not raw:
                return
    finally:
        fh.close()


def iter_shard_token_lines(shard, tokenizer="whitespace", lowercase=False,
                           chunk_chars=DEFAULT_CHUNK_CHARS):
    """Yield ``(tokens, ends_sentence)`` pieces of one shard.

    The same pieces as :func:`w2v.text.scanning.iter_token_lines` (bounded chunks,
    tokens never straddle two pieces), for a byte range of a file; the shard
    ends a sentence.
    """
    yield from token_pieces(_open_shard_text(shard, chunk_chars), tokenizer, lowercase, chunk_chars)

class ShardScan:
    """One shard read once: distinct words (first-occurrence order), counts, provisional ids.

    ``ids`` holds provisional ids (indices into ``words``) with ``SENTINEL``
    after each sentence, as :func:`w2v.text.scanning.scan_corpus` records them;
    ``replaced`` is how many undecodable byte sequences were read as U+FFFD.
    """

    def __init__(self, words, counts, ids, n_tokens, replaced=0):
        self.words = words
        self.counts = counts
        self.ids = ids
        self.n_tokens = n_tokens
        self.replaced = replaced


def scan_shard(shard, tokenizer="whitespace", lowercase=False, chunk_chars=DEFAULT_CHUNK_CHARS):
    """Tokenize a shard once: count words and record the provisional id stream.

    Returns
    -------
    ShardScan
    """
    next_id = itertools.count().__next__
    index = defaultdict(next_id)
    lookup = index.__getitem__
    parts = []
    pending = []
    pending_ends = []
    pending_len = 0
    replaced_before = replaced_sequences()   # counted per thread: the scan runs in this one

    def flush():
        nonlocal pending_len
        flat = list(itertools.chain.from_iterable(pending))
        ids = np.fromiter(map(lookup, flat), dtype=np.int32, count=len(flat))
        lens = np.fromiter(map(len, pending), dtype=np.int64, count=len(pending))
        ends = np.asarray(pending_ends, dtype=bool)
        out = np.empty(ids.size + int(ends.sum()), np.int32)
        offsets = np.cumsum(lens) + np.cumsum(ends)
        mask = np.ones(out.size, bool)
        mask[offsets[ends] - 1] = False
        out[~mask] = SENTINEL
        out[mask] = ids
        parts.append(out)
        pending.clear()
        pending_ends.clear()
        pending_len = 0

    for toks, ends in iter_shard_token_lines(shard, tokenizer, lowercase, chunk_chars):
        pending.append(toks)
        pending_ends.append(ends)
        pending_len += len(toks) + 1
        if pending_len >= (1 << 18):
            flush()
    flush()
    ids = np.concatenate(parts) if parts else np.empty(0, np.int32)
    words = list(index.keys())
    real = ids[ids >= 0]
    counts = np.bincount(real, minlength=len(words)).astype(np.int64)
    return ShardScan(words, counts, ids, int(real.size), replaced_sequences() - replaced_before)


def count_shard(shard, tokenizer="whitespace", lowercase=False, chunk_chars=DEFAULT_CHUNK_CHARS):
    """Words of a shard in first-occurrence order and their counts."""
    s = scan_shard(shard, tokenizer, lowercase, chunk_chars)
    return s.words, s.counts


def merge_counts(a, b):
    """Merge two ``(words, counts)`` pairs; ``a``'s words come first (first-occurrence order).

    Associative, so any tree of merges over shards in corpus order gives the
    words and counts of one pass over the whole corpus.
    """
    a_words, a_counts = a
    b_words, b_counts = b
    index = dict(zip(a_words, range(len(a_words))))
    n = len(a_words)
    words = list(a_words)
    pos = np.empty(len(b_words), np.int64)
    get = index.get
    for j, w in enumerate(b_words):
        i = get(w)
        if i is None:
            i = len(words)
            words.append(w)
        pos[j] = i
    counts = np.zeros(len(words), np.int64)
    counts[:n] = a_counts
    counts[pos] += np.asarray(b_counts, np.int64)  # words of one side are distinct
    return words, counts


def encode_ids(ids, shard_words, vocab_index):
    """Final vocabulary ids of a shard's provisional stream (OOV dropped, empty sentences collapsed).

    The same transformation as :func:`w2v.text.encoded.encode_corpus`, for one shard
    whose stream starts a sentence.

    Returns
    -------
    numpy.ndarray of int32
    """
    get = vocab_index.get
    remap = np.fromiter((get(w, -2) for w in shard_words), dtype=np.int32, count=len(shard_words))
    return remap_ids(ids, id_table(remap), True)
