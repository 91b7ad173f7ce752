"""Exact word counts in bounded memory: a byte vocabulary that spills to disk past its budget.

:class:`BoundedCount` counts the tokens of a scan (:mod:`w2v.text.scanning`)
in a :class:`~w2v.kernels.tokenize.ByteVocabulary` whose arrays may not pass
a memory budget.  While they fit, nothing changes: the words get provisional
ids in order of first occurrence, as they always did.  When they would pass
it, the vocabulary is *spilled*: its words (a *generation*) go to
hash-partitioned files on disk as records ``(bytes, count, local id)``, and
an empty vocabulary goes on from the next token, so the provisional ids
written after that are ids local to the new generation.  At the end
(:meth:`BoundedCount.finish`):

1. each partition is merged on its own (a word's records share a partition,
   so a partition holds whole words): its records are added up by bytes, in
   a hash table within the budget (a partition too large for it is split
   into smaller ones first);
2. the words that occur at least ``min_count`` times (and those of
   ``always``, a model's vocabulary) are *listed*, in order of first
   occurrence over the whole corpus, exactly as an in-memory scan orders
   them; the others are only counted (how many, and their bytes);
3. the id stream is rewritten generation by generation: a local id becomes
   the listed word's index, or :data:`~w2v.text.encoded.UNLISTED`.

The vocabulary taken from the listed words, and the encoded corpus, are
then the same as an in-memory scan gives: the counts are exact, ties keep
their order of first occurrence.  docs/large-corpora.md has the choice of
this scheme and its measurements.
"""
import numpy as np

from ..errors import BudgetError
from .encoded import SENTINEL, UNLISTED
from .spill import BlockFiles
from .vocab import ListedWords, mib, size_text

PARTITIONS = 64            # the files a generation is spread over (by the top bits of the words' hashes)
SPLIT = 8                  # the parts a partition too large to merge in the budget is split into
MIN_TABLE_BYTES = 8 << 20  # the counting tables may always use this much (a budget of 0 puts only the ids on disk)
SPILL_SHARE = 8            # the tables keep 1/8 of the budget free for the spill's own arrays
MERGE_RECORD_BYTES = 128   # RAM per record while a partition is merged, beside the records' bytes
LISTED_WORD_BYTES = 80     # RAM per listed word (a str and its count), beside its bytes
MAX_SPLITS = 8             # how many times a partition may be split before it is merged whatever its size
REPLACEMENT = "\ufffd"


def _kernels():
    """:mod:`w2v.kernels.spill`, imported on first use."""
    from ..kernels import spill   # Numba and the kernels take 0.5 s to import: not at start-up
    return spill


def unspilled_budget(n_words, n_bytes):
    """A memory budget under which a scan counts ``n_words`` distinct words of ``n_bytes`` bytes in all
    without spilling: the arrays :class:`~w2v.kernels.tokenize.ByteVocabulary` grows to for them, the
    largest of its last growths beside them, and the spill's share (an upper bound: the order in
    which the arrays grow depends on the corpus)."""
    capacity = 1 << 15
    while capacity < n_words:
        capacity *= 2
    slots = 2 << 15
    while 4 * n_words > slots:
        slots *= 2
    arena = max(1 << 20, 2 * (n_bytes + n_words))
    tables = 8 * slots + 24 * capacity + arena + max(4 * slots, 24 * capacity, arena)
    return -(-tables * SPILL_SHARE // (SPILL_SHARE - 1))


def table_budget(memory_budget):
    """Bytes the counting tables of a scan under ``memory_budget`` may use (at least
    :data:`MIN_TABLE_BYTES`)."""
    return max(int(memory_budget), MIN_TABLE_BYTES)


class BoundedCount:
    """The counting tables of a scan, kept within a memory budget by spilling to disk.

    Parameters
    ----------
    memory_budget : int
        Bytes for the counting tables (at least :data:`MIN_TABLE_BYTES`);
        also the bound of each step of :meth:`finish`.
    min_count : int
        After a spill, the words occurring fewer times are not listed.
    always : sequence of str, optional
        Words listed after a spill whatever their counts.
    tmpdir : str, optional
        Folder of the temporary files (default: ``tempfile.gettempdir()``).
    partitions : int
        Files a generation is spread over (a power of two).

    The scan calls :meth:`count` for each buffer of tokens (from one thread
    at a time), then :meth:`finish`, and :meth:`close` in any case.
    """

    def __init__(self, memory_budget, min_count=1, always=None, tmpdir=None, partitions=PARTITIONS):
        from ..kernels.tokenize import ByteVocabulary   # Numba (0.5 s to import): not at start-up
        self.budget = table_budget(memory_budget)
        self.min_count = int(min_count)
        self.always = always
        if partitions < 1 or partitions & (partitions - 1):
            raise ValueError(f"partitions must be a power of two, not {partitions}")
        self.partition_bits = partitions.bit_length() - 1
        self.vocab = ByteVocabulary(limit=self.budget - self.budget // SPILL_SHARE)
        self.files = BlockFiles(partitions, tmpdir)
        self.generation_sizes = []     # words of each generation spilled
        self.table_bytes = self.vocab.allocated   # read by the scan's other thread: a plain int
        self.stats = {}

    @property
    def spilled(self):
        """Whether a generation went to disk."""
        return bool(self.generation_sizes)

    @property
    def n_lines(self):
        """The ``\\n`` counted so far."""
        return int(self.vocab.state[2])

    def count(self, buf, items, n_items):
        """Count ``n_items`` tokens of ``items`` (:meth:`~w2v.kernels.tokenize.ByteVocabulary.count`),
        spilling whenever the tables are full.

        Returns
        -------
        (written, newlines, cuts)
            Ids written to ``items.ids``, ``\\n`` among them, and the positions
            among the ids where a new generation starts.
        """
        cuts = []

        def on_full(written):
            self.spill()
            cuts.append(written)

        written, newlines = self.vocab.count(buf, items, n_items, on_full)
        self.table_bytes = self.vocab.allocated
        return written, newlines, cuts

    # ------------------------------------------------------------------ spilling
    def spill(self):
        """Write the words of the vocabulary (a generation) to the partition files and empty it."""
        v = self.vocab
        n = v.size
        generation = len(self.generation_sizes)
        meta = v.words_meta
        rows = max(256, min(1 << 20, self.budget // SPILL_SHARE // 64))   # the spill's arrays: 1/8 of the budget
        for lo in range(0, n, rows):
            hi = min(n, lo + rows)
            local = np.arange(lo, hi, dtype=np.int64)
            self._write_records(generation, v.arena, meta[lo:hi, 0].copy(), meta[lo:hi, 1].copy(), local,
                                v.counts[lo:hi])
        self.generation_sizes.append(n)
        v.reset()

    def _write_records(self, generation, keys, starts, lens, local, counts):
        """Route records to the partition files; keys that are not UTF-8 go under the bytes of the word
        they decode to (``errors="replace"``), so that the merge adds them up with it."""
        bad = np.zeros(lens.size, np.bool_)
        if _kernels().invalid_utf8(keys, starts, lens, bad):
            good = ~bad
            fixed = [keys[s:s + n].tobytes().decode("utf-8", "replace").encode("utf-8")
                     for s, n in zip(starts[bad].tolist(), lens[bad].tolist())]
            fixed_lens = np.fromiter(map(len, fixed), np.int64, len(fixed))
            fixed_keys = np.frombuffer(b"".join(fixed) or b"\0", np.uint8)
            self._route(self.files, generation, fixed_keys, np.cumsum(fixed_lens) - fixed_lens, fixed_lens,
                        local[bad], counts[bad], 0)
            starts, lens, local, counts = starts[good], lens[good], local[good], counts[good]
        self._route(self.files, generation, keys, starts, lens, local, counts, 0)

    def _route(self, files, tag, keys, starts, lens, local, counts, level):
        """Append records to ``files`` by the bits of their hashes below the ``level`` splits before."""
        if lens.size == 0:
            return
        hashes = np.empty(lens.size, np.uint64)
        _kernels().key_hashes(keys, starts, lens, hashes)
        bits = files.n_files.bit_length() - 1
        used = 0 if level == 0 else self.partition_bits + (level - 1) * (SPLIT.bit_length() - 1)
        n = lens.size
        out_lens, out_local, out_counts = np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int64)
        out_keys = np.empty(int(lens.sum()), np.uint8)
        bounds = np.empty(files.n_files + 1, np.int64)
        key_bounds = np.empty(files.n_files + 1, np.int64)
        _kernels().scatter_records(hashes, 64 - used - bits if bits else 0, files.n_files, keys, starts, lens, local,
                                   counts, out_lens, out_local, out_counts, out_keys, bounds, key_bounds)
        for p in range(files.n_files):
            a, b = bounds[p], bounds[p + 1]
            if a < b:
                files.write(p, tag, [out_lens[a:b], out_local[a:b], out_counts[a:b],
                                     out_keys[key_bounds[p]:key_bounds[p + 1]]])

    # ------------------------------------------------------------------ the end
    def finish(self, stream, generation_starts):
        """Merge the spilled counts, list the words and rewrite ``stream`` with their ids.

        Parameters
        ----------
        stream : w2v.text.encoded.IdStream
            The scan's ids (finished): those of generation ``g`` from
            ``generation_starts[g]`` on.
        generation_starts : list of int
            Where each generation's ids begin (the first at 0).

        Returns
        -------
        (ListedWords, numpy.ndarray of int64)
            The listed words and their counts.

        Raises
        ------
        BudgetError
            The listed words do not fit the budget.
        CorpusError
            A temporary file cannot be written or read.
        """
        self.spill()
        self.vocab = None                    # the counting tables are not needed any more
        self.table_bytes = 0
        listing = _Listing(self.always)
        resolved = BlockFiles(1, self.files.tmpdir)
        try:
            for p in range(self.files.n_files):
                self._merge(self.files, p, 0, listing, resolved)
                self.files.drop(p)
            words, counts, rank = listing.result(self.min_count, self.budget)
            self.stats = dict(generations=len(self.generation_sizes), spilled_bytes=self.files.bytes_written,
                              resolved_bytes=resolved.bytes_written,
                              unlisted_replaced=tuple(listing.unlisted_replaced))
            self._rewrite(stream, generation_starts, resolved, rank)
        finally:
            resolved.close()
        return words, counts

    def _merge(self, files, index, level, listing, resolved):
        """Merge the records of file ``index`` of ``files`` into ``listing``; the listed words' records
        go to ``resolved`` as ``(local id, listed index)`` blocks tagged with their generation."""
        blocks = files.blocks(index)
        n = sum(sizes[0] for _, sizes in blocks)
        if n == 0:
            return
        key_bytes = sum(sizes[3] for _, sizes in blocks)
        if n * MERGE_RECORD_BYTES + key_bytes > self.budget and level < MAX_SPLITS and n > 1:
            self._split(files, index, level, listing, resolved)
            return
        parts = [files.read(index, b) for b in range(len(blocks))]
        generations = np.repeat(np.array([tag for tag, _ in blocks], np.int64),
                                [sizes[0] for _, sizes in blocks])
        lens = np.concatenate([p[0] for p in parts]).astype(np.int64)
        local = np.concatenate([p[1] for p in parts])
        counts = np.concatenate([p[2] for p in parts])
        keys = np.concatenate([p[3] for p in parts])
        del parts
        starts = np.cumsum(lens) - lens
        firsts = (generations << 32) | local.astype(np.int64)
        table = np.full(1 << max(1, (2 * n - 1).bit_length()), -1, np.int64)
        word_record = np.empty(n, np.int64)
        word_count = np.empty(n, np.int64)
        word_first = np.empty(n, np.int64)
        record_word = np.empty(n, np.int32)
        nw = _kernels().merge_keys(keys, starts, lens, counts, firsts, table, word_record, word_count,
                                   word_first, record_word)
        del table, firsts
        refs = listing.add(keys, starts, lens, word_record[:nw], word_count[:nw], word_first[:nw],
                           self.min_count)
        record_ref = refs[record_word]
        kept = record_ref >= 0
        gens, local, record_ref = generations[kept], local[kept], record_ref[kept]
        edges = np.concatenate([[0], np.flatnonzero(np.diff(gens)) + 1, [gens.size]])   # gens never decrease
        for a, b in zip(edges[:-1], edges[1:]):
            if a < b:
                resolved.write(0, int(gens[a]), [local[a:b], record_ref[a:b].astype(np.int32)])

    def _split(self, files, index, level, listing, resolved):
        """Split file ``index`` of ``files`` into :data:`SPLIT` files by further bits of the hashes, and
        merge each."""
        parts = BlockFiles(SPLIT, files.tmpdir)
        try:
            for b, (tag, _) in enumerate(files.blocks(index)):
                lens, local, counts, keys = files.read(index, b)
                lens = lens.astype(np.int64)
                self._route(parts, tag, keys, np.cumsum(lens) - lens, lens, local, counts, level + 1)
            files.drop(index)
            for p in range(SPLIT):
                self._merge(parts, p, level + 1, listing, resolved)
                parts.drop(p)
        finally:
            parts.close()

    def _rewrite(self, stream, generation_starts, resolved, rank, block=1 << 22):
        """Turn each generation's local ids in ``stream`` into listed indices (``rank`` of the listed
        index of merge order) or ``UNLISTED``."""
        by_generation = {}
        for b, (tag, _) in enumerate(resolved.blocks(0)):
            by_generation.setdefault(tag, []).append(b)
        bounds = list(generation_starts) + [stream.length]
        for g, size in enumerate(self.generation_sizes):
            table = np.full(size + 1, UNLISTED, np.int32)   # shifted by one: index 0 is the sentinel
            table[0] = SENTINEL
            for b in by_generation.get(g, []):
                local, ref = resolved.read(0, b)
                table[local.astype(np.int64) + 1] = rank[ref]
            for start in range(bounds[g], bounds[g + 1], block):
                ids = stream.read(start, min(block, bounds[g + 1] - start))
                stream.write_at(start, table[ids.astype(np.int64) + 1])

    def close(self):
        """Remove the temporary files."""
        self.files.close()


class _Listing:
    """The words a merge lists, in merge order, with what it knows of the others."""

    def __init__(self, always):
        self.firsts = []
        self.counts = []
        self.lens = []
        self.keys = []
        self.n_listed = 0
        self.n_distinct = 0
        self.all_bytes = 0           # the bytes of every distinct word
        self.unlisted_replaced = [0, 0]   # words holding U+FFFD left out, and their tokens
        self.always = _Known(always) if always is not None else None
        self.always_words = always

    def add(self, keys, starts, lens, word_record, word_count, word_first, min_count):
        """Add the merged words of one partition; return each one's listed index (``-1``: not listed)."""
        listed = word_count >= min_count
        word_lens = lens[word_record]
        if self.always is not None and not listed.all():
            listed[~listed] = self.always.holds(keys, starts, lens, word_record[~listed])
        left = word_record[~listed]
        if left.size:
            flags = np.zeros(left.size, np.bool_)
            _kernels().holds_replacement(keys, starts[left], lens[left], flags)
            self.unlisted_replaced[0] += int(flags.sum())
            self.unlisted_replaced[1] += int(word_count[~listed][flags].sum())
        chosen = np.flatnonzero(listed)
        refs = np.full(word_record.size, -1, np.int64)
        refs[chosen] = self.n_listed + np.arange(chosen.size)
        self.n_listed += chosen.size
        self.n_distinct += word_record.size
        self.all_bytes += int(word_lens.sum())
        if chosen.size:
            rec = word_record[chosen]
            out = np.empty(int(lens[rec].sum()), np.uint8)
            _kernels().gather_keys(rec, starts, lens, keys, out, -1)
            self.firsts.append(word_first[chosen])
            self.counts.append(word_count[chosen])
            self.lens.append(lens[rec])
            self.keys.append(out)
        return refs

    def result(self, min_count, budget):
        """The listed words in order of first occurrence (:class:`~w2v.text.vocab.ListedWords`), their
        counts, and each listed index's rank in that order."""
        n = self.n_listed
        lens = np.concatenate(self.lens) if n else np.zeros(0, np.int64)
        needed = int(lens.sum()) + n * LISTED_WORD_BYTES
        if needed > budget:
            raise BudgetError(f"the {n:,} words that occur at least {min_count:,} times (of {self.n_distinct:,} "
                              f"distinct) need about {size_text(needed)}, more than the memory budget "
                              f"({size_text(budget)}): give --memory-budget {mib(needed):,} (MiB) or more, or "
                              "raise min_count", needed)
        firsts = np.concatenate(self.firsts) if n else np.zeros(0, np.int64)
        counts = np.concatenate(self.counts) if n else np.zeros(0, np.int64)
        keys = np.concatenate(self.keys) if n else np.zeros(0, np.uint8)
        self.firsts = self.counts = self.keys = self.lens = None
        order = np.argsort(firsts, kind="stable")
        rank = np.empty(n, np.int32)
        rank[order] = np.arange(n, dtype=np.int32)
        text = np.empty(keys.size + n, np.uint8)
        _kernels().gather_keys(order, np.cumsum(lens) - lens, lens, keys, text, 10)
        words = text.tobytes().decode("utf-8", "replace").split("\n")[:n] if n else []
        listed = ListedWords(words, min_count, self.always_words, self.n_distinct,
                             unspilled_budget(self.n_distinct, self.all_bytes))
        return listed, counts[order], rank


class _Known:
    """A set of words as byte keys, to look keys up in (:func:`~w2v.kernels.spill.find_keys`)."""

    def __init__(self, words):
        encoded = [w.encode("utf-8", "surrogatepass") for w in words]
        self.lens = np.fromiter(map(len, encoded), np.int64, len(encoded))
        self.starts = np.cumsum(self.lens) - self.lens
        self.keys = np.frombuffer(b"".join(encoded) or b"\0", np.uint8)
        n = len(encoded)
        self.table = np.full(1 << max(1, (2 * n - 1).bit_length()), -1, np.int64)
        zeros = np.zeros(n, np.int64)
        _kernels().merge_keys(self.keys, self.starts, self.lens, zeros, zeros, self.table, np.empty(n, np.int64),
                              np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int32))

    def holds(self, keys, starts, lens, which):
        """Whether each key ``which`` (indices into ``starts``/``lens``) is a known word."""
        found = np.zeros(which.size, np.bool_)
        _kernels().find_keys(keys, starts, lens, which, self.table, self.keys, self.starts, self.lens, found)
        return found
