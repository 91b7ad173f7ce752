"""The tables of phrase detection and the loops that fill and use them.

* :class:`RunTable`: the connector runs (gensim's ``in_between`` words) by id;
* :class:`PairCounts`: the pair counts, in one open-addressing hash table per
  counting thread (a pair belongs to the thread its hash names), bounded by
  pruning as word2vec.c's ``ReduceVocab`` does (the ``word2vec`` scoring);
* :class:`VocabBound`: gensim's ``max_vocab_size``, pruning words and pairs
  while counting;
* :func:`count_stream`: unigrams and pairs of an id stream, counted by
  several threads at once (:func:`w2v.kernels.phrases.count_pairs`);
* :class:`JoinTable` and :func:`join_stream`: one pass of joining over an id
  stream, in place.

The kernels and their shared state machine are in :mod:`w2v.kernels.phrases`.
"""
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from ..kernels.phrases import (count_pairs, fill_filter, hash_runs, insert_entries, intern_run, intern_runs,
                               join_phrases, last_anchor_cut, pair_parts, rebuild_runs, table_entries)
from ..util.checks import is_integer
from ..errors import ParameterError

MAX_LOAD = 0.7            # entries per slot a table is sized for, as word2vec.c's vocab_hash
FULL_LOAD = 0.85          # entries per slot at which a table grows
PIECE_IDS = 1 << 20       # ids counted or joined per call


class StreamIds(NamedTuple):
    """How the ids of a stream name model tokens (see :mod:`w2v.kernels.phrases`).

    Id ``t`` is model token ``t`` below ``n_ident``, else ``key_extra[t - n_ident]``
    (``-1``: unknown); ``conn_model`` and ``conn_extra`` flag the connectors alike.
    """

    n_ident: int
    key_extra: np.ndarray
    conn_model: np.ndarray
    conn_extra: np.ndarray

    @classmethod
    def identity(cls, connector):
        """Stream ids that are the model's own token ids; ``connector`` flags each token."""
        return cls(len(connector), np.zeros(0, np.int32), np.asarray(connector, np.bool_), np.zeros(0, np.bool_))

    @classmethod
    def mapped(cls, key_of, connector):
        """Stream ids ``t`` that stand for model token ``key_of[t]``; ``connector[t]`` flags them."""
        return cls(0, np.ascontiguousarray(key_of, np.int32), np.zeros(0, np.bool_),
                   np.ascontiguousarray(connector, np.bool_))


def _next_pow2(n):
    return 1 << max(4, int(n - 1).bit_length())


def table_width(runs):
    """Columns of a pair table's slot: key, run (only when some pair has a connector run), value."""
    return 3 if runs else 2


def _slots(n):
    """Slots of a pair table for ``n`` entries at :data:`MAX_LOAD` (any number: see
    :func:`w2v.kernels.phrases.home_slot`)."""
    return max(16, int(n / MAX_LOAD) + 1)


def expected_pairs(tokens):
    """About how many distinct pairs a corpus of ``tokens`` tokens holds, to size the tables once:
    4.0M in the 17M-token wiki slice, 11.2M in the 69M corpus (3 * tokens ** 0.85: 4.1M, 13.8M),
    and at most a quarter of the tokens."""
    return int(min(tokens / 4, 3 * tokens ** 0.85))


class RunTable:
    """Connector runs: sequences of model tokens, ids from 1 in order of first sight (0: no run)."""

    def __init__(self):
        self.rtab = np.full(1 << 10, -1, np.int64)
        self.rhash = np.zeros(1 << 9, np.uint64)
        self.roff = np.zeros((1 << 9) + 1, np.int64)
        self.pool = np.zeros(1 << 10, np.int32)
        self.rstate = np.zeros(2, np.int64)   # runs, pool ids used

    def __len__(self):
        return int(self.rstate[0])

    def reserve(self, runs, ids):
        """Make room for ``runs`` more runs holding ``ids`` more tokens in all."""
        n, used = len(self), int(self.rstate[1])
        if n + runs > self.rhash.size:
            size = _next_pow2(n + runs)
            self.rhash = np.concatenate([self.rhash[:n], np.zeros(size - n, np.uint64)])
            self.roff = np.concatenate([self.roff[:n + 1], np.zeros(size - n, np.int64)])
        if used + ids > self.pool.size:
            self.pool = np.concatenate([self.pool[:used], np.zeros(_next_pow2(used + ids) - used, np.int32)])
        if (n + runs) > MAX_LOAD * self.rtab.size:
            self.rtab = np.full(_next_pow2((n + runs) / MAX_LOAD + 1), -1, np.int64)
            rebuild_runs(self.rtab, self.rhash, self.roff, self.pool, n)

    def intern(self, tokens):
        """The id (from 1) of the run of model ``tokens``, added if new."""
        tokens = np.ascontiguousarray(tokens, np.int32)
        self.reserve(1, tokens.size)
        return int(intern_run(tokens, self.rtab, self.rhash, self.roff, self.pool, self.rstate))

    def run(self, run_id):
        """The model tokens of run ``run_id`` (from 1)."""
        return self.pool[self.roff[run_id - 1]:self.roff[run_id]]

    def arrays(self):
        """``(offsets, tokens)``: run ``r`` (from 1) is ``tokens[offsets[r - 1]:offsets[r]]``."""
        n = len(self)
        return self.roff[:n + 1].copy(), self.pool[:int(self.rstate[1])].copy()

    @classmethod
    def from_arrays(cls, offsets, tokens):
        """The table of runs given as :meth:`arrays` gives them (checked by the caller)."""
        table = cls()
        n = offsets.size - 1
        table.reserve(n, tokens.size)
        table.roff[:n + 1] = offsets
        table.pool[:tokens.size] = tokens
        hash_runs(offsets, tokens.astype(np.int32), table.rhash[:n])
        table.rstate[:] = (n, tokens.size)
        table.rtab[:] = -1
        rebuild_runs(table.rtab, table.rhash, table.roff, table.pool, n)
        return table


class PairCounts:
    """Pair counts ``(a, run, b) -> count`` in ``nparts`` hash tables, pruned to ``max_entries``.

    With ``runs`` false every run is 0 (no connector words), and the tables keep no run column.

    Two rules bound them.  :meth:`prune`, word2vec.c's ``ReduceVocab`` on pairs (the
    ``word2vec`` scoring): when more than ``max_entries`` pairs are held, the pairs seen at
    most ``min_reduce`` times are dropped and ``min_reduce`` grows by one, until at most
    ``max_entries`` are left.  :class:`VocabBound`, gensim's ``prune_vocab`` on words and pairs
    together, calls :meth:`drop_below` (the other scorings); there ``min_reduce`` is gensim's
    ``Phrases.min_reduce``.  ``pruned`` records that a count was dropped.
    """

    def __init__(self, nparts, max_entries, runs=True):
        self.nparts = int(nparts)
        self.max_entries = int(max_entries)
        self.width = table_width(runs)
        self.tables = [self._table(1 << 10) for _ in range(self.nparts)]
        self.fill = np.zeros((self.nparts, 1), np.int64)
        self.min_reduce = 1
        self.pruned = False

    def __len__(self):
        return int(self.fill.sum())

    def limit(self, p):
        """Entries partition ``p``'s table may hold before it must grow (:data:`FULL_LOAD` of its slots)."""
        return int(FULL_LOAD * self.tables[p].shape[0])

    def grow(self, p):
        """Give partition ``p`` half as many slots again (at least :data:`MAX_LOAD` of them free)."""
        self._resize(p, _slots(1.5 * int(self.fill[p, 0])))

    def presize(self, pairs):
        """Size the tables for about ``pairs`` pairs in all (at most ``max_entries``), so that
        they need not grow step by step (each step rehashes every pair)."""
        share = min(int(pairs), self.max_entries) // self.nparts
        for p in range(self.nparts):
            if share > MAX_LOAD * self.tables[p].shape[0]:
                self._resize(p, _slots(share))

    def _resize(self, p, slots):
        keys, runs, values = table_entries(self.tables[p], 1)
        table = self._table(slots)
        insert_entries(table, keys, runs, values)
        self.tables[p] = table

    def _table(self, slots):
        return np.zeros((slots, self.width), np.int64)

    def prune(self):
        """Drop the rarest pairs while more than ``max_entries`` are held (see the class)."""
        while len(self) > self.max_entries:
            for p in range(self.nparts):
                keys, runs, values = table_entries(self.tables[p], self.min_reduce + 1)
                self.tables[p] = self._table(self.tables[p].shape[0])
                insert_entries(self.tables[p], keys, runs, values)
                self.fill[p, 0] = keys.size
            self.min_reduce += 1
            self.pruned = True

    def drop_below(self, min_count):
        """Drop the pairs seen fewer than ``min_count`` times (gensim's ``prune_vocab``); return
        whether one was dropped."""
        before = len(self)
        for p in range(self.nparts):
            keys, runs, values = table_entries(self.tables[p], min_count)
            if keys.size < self.fill[p, 0]:
                self.tables[p] = self._table(self.tables[p].shape[0])
                insert_entries(self.tables[p], keys, runs, values)
                self.fill[p, 0] = keys.size
        dropped = len(self) < before
        self.pruned = self.pruned or dropped
        return dropped

    def merge_parts(self):
        """Hold every pair in one table: counting goes on in one thread, as gensim's bound needs
        (:class:`VocabBound`); the counts stay the same."""
        if self.nparts == 1:
            return
        keys, runs, values = self.entries(ordered=False)
        self.nparts = 1
        self.tables = [self._table(_slots(max(keys.size, sum(t.shape[0] for t in self.tables) * MAX_LOAD)))]
        insert_entries(self.tables[0], keys, runs, values)
        self.fill = np.array([[keys.size]], np.int64)

    def entries(self, min_count=1, ordered=True):
        """The pairs seen ``min_count`` times or more as ``(keys, runs, counts)``; ``key = a << 32 | b``.
        With ``ordered``, sorted by key then run (else in table order)."""
        parts = [table_entries(t, min_count) for t in self.tables]
        keys = np.concatenate([p[0] for p in parts])
        runs = np.concatenate([p[1] for p in parts])
        counts = np.concatenate([p[2] for p in parts])
        if not ordered:
            return keys, runs, counts
        order = np.lexsort((runs, keys))
        return keys[order], runs[order], counts[order]

    def add(self, keys, runs, counts):
        """Add counts (a saved model's, or another's): each pair goes to its partition.  Nothing is
        pruned (the caller applies its rule)."""
        if not keys.size:
            return
        if self.width == 2 and np.any(runs):
            raise ValueError("pairs with connector runs added to counts without runs")
        old_keys, old_runs, old_counts = self.entries()
        keys = np.concatenate([old_keys, keys])
        runs = np.concatenate([old_runs, runs])
        counts = np.concatenate([old_counts, counts])
        order = np.lexsort((runs, keys))
        keys, runs, counts = keys[order], runs[order], counts[order]
        first = np.ones(keys.size, bool)
        first[1:] = (keys[1:] != keys[:-1]) | (runs[1:] != runs[:-1])
        starts = np.flatnonzero(first)
        keys, runs, counts = keys[starts], runs[starts], np.add.reduceat(counts, starts)
        part = pair_parts(keys, runs, self.nparts)
        for p in range(self.nparts):
            mine = part == p
            self.tables[p] = self._table(_slots(int(mine.sum())))
            insert_entries(self.tables[p], keys[mine], runs[mine], counts[mine])
            self.fill[p, 0] = int(mine.sum())


class CountOptions(NamedTuple):
    """How a stream is cut into candidates (see :mod:`w2v.kernels.phrases`)."""

    cross_lines: bool   # pairs across sentence ends are counted (word2phrase, without connectors)
    chunk: int          # a sentence ends every ``chunk`` tokens of a line (0: never)
    max_run: int        # a longer run of connectors drops the start
    threads: int


class VocabBound:
    """gensim's ``max_vocab_size`` while counting (its ``Phrases._learn_vocab``).

    After each sentence, when more than ``limit`` words (connectors excepted) and pairs are
    held, the words and pairs seen fewer than ``min_reduce`` times are dropped (gensim's
    ``utils.prune_vocab``) and ``min_reduce`` grows by one: once per sentence, so the counts
    may stay above ``limit`` for a few sentences.  ``min_reduce`` starts at 1, whose prune
    drops nothing.  The kernel checks at each sentence end (:func:`w2v.kernels.phrases.count_pairs`);
    it needs every pair in one table, so the partitions are merged before a piece of the
    stream that could reach the limit.

    Parameters
    ----------
    limit : int
    unigram : numpy.ndarray of int64
        Counts per model token, pruned in place.
    connector : numpy.ndarray of bool
        Per model token: a connector word (never held nor pruned, as in gensim).
    pairs : PairCounts
    """

    def __init__(self, limit, unigram, connector, pairs):
        self.limit = int(limit)
        self.unigram = unigram
        self.connector = connector
        self.pairs = pairs
        self.min_reduce = 1
        self.dropped = False
        self.vocab = np.array([self.words_held(), 0], np.int64)   # the kernel's (words held, prune requested)

    def words_held(self):
        """Words counted that are not connectors."""
        return int(np.count_nonzero((self.unigram > 0) & ~self.connector[:self.unigram.size]))

    def size(self):
        """gensim's ``len(vocab)``: words held and pairs."""
        return int(self.vocab[0]) + len(self.pairs)

    def kernel_limit(self, ids):
        """The ``vocab_limit`` of a piece of ``ids`` ids: ``-1`` when the piece cannot reach the limit
        (each id adds at most a word and a pair), else the limit, the pairs in one table."""
        if self.size() + 2 * ids <= self.limit:
            return -1
        self.pairs.merge_parts()
        return self.limit

    def prune(self):
        """Drop what was seen fewer than ``min_reduce`` times; ``min_reduce`` grows by one."""
        self.dropped = prune_counts(self.unigram, self.connector, self.pairs, self.min_reduce) or self.dropped
        self.min_reduce += 1
        self.vocab[:] = (self.words_held(), 0)


def prune_counts(unigram, connector, pairs, min_count):
    """gensim's ``prune_vocab``: drop the words (connectors excepted) and pairs seen fewer than
    ``min_count`` times; return whether one was dropped."""
    rare = (unigram > 0) & (unigram < min_count) & ~connector[:unigram.size]
    unigram[rare] = 0
    return bool(pairs.drop_below(min_count)) or bool(rare.any())


def count_stream(blocks, ids, unigram, pairs, runs, options, bound=None):
    """Count the unigrams and candidate pairs of a stream into ``unigram``, ``pairs`` and ``runs``.

    Parameters
    ----------
    blocks : iterable of numpy.ndarray of int32
        The stream, in order; it should end with a sentence end.
    ids : StreamIds
    unigram : numpy.ndarray of int64
        Counts per model token (long enough for every token the stream names).
    pairs : PairCounts
        One partition per counting thread.
    runs : RunTable
    options : CountOptions
    bound : VocabBound, optional
        gensim's bound, checked after each sentence; without it, the pairs are pruned after
        each piece by word2vec.c's rule (:meth:`PairCounts.prune`).

    Returns
    -------
    int
        Tokens counted (sentence ends excepted).
    """
    use_runs = bool(ids.conn_model.any() or ids.conn_extra.any())
    if use_runs and pairs.width == 2:
        raise ValueError("a stream with connector words counted into pair tables without runs")
    state = np.array([-1, 0, 0], np.int64)
    carry = np.zeros(0, np.int32)
    tokens = 0
    pool = ThreadPoolExecutor(pairs.nparts, thread_name_prefix="w2v-phrases") if pairs.nparts > 1 else None
    try:
        for block, final in _with_last(blocks):
            piece = np.concatenate([carry, block]) if carry.size else np.ascontiguousarray(block, np.int32)
            n = piece.size
            cut = n if final or not use_runs else last_anchor_cut(piece, n, ids.n_ident, ids.conn_model,
                                                                 ids.conn_extra, options.max_run)
            run_at = np.zeros(cut if use_runs else 0, np.int32)
            if use_runs:
                runs.reserve(cut, cut)
                intern_runs(piece, cut, ids.n_ident, ids.key_extra, ids.conn_model, ids.conn_extra, options.chunk,
                            options.max_run, state, runs.rtab, runs.rhash, runs.roff, runs.pool, runs.rstate, run_at)
            counter = _PieceCounter(piece, cut, ids, run_at, use_runs, options, pairs, unigram, state, bound)
            if pairs.nparts == 1:
                counter(0)
            else:
                list(pool.map(counter, range(pairs.nparts)))
            state = counter.states[0]
            tokens += int(np.count_nonzero(piece[:cut] >= 0))
            carry = piece[cut:]
            if bound is None:
                pairs.prune()
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    return tokens


class _PieceCounter:
    """Counts ``piece[:cut]`` into one partition of ``pairs`` when called with its number, growing
    the table and applying ``bound`` as the kernel asks."""

    def __init__(self, piece, cut, ids, run_at, use_runs, options, pairs, unigram, state, bound):
        self.piece, self.cut, self.ids, self.run_at, self.use_runs = piece, cut, ids, run_at, use_runs
        self.options, self.pairs, self.unigram, self.bound = options, pairs, unigram, bound
        self.vocab_limit = bound.kernel_limit(cut) if bound is not None else -1   # may merge the partitions
        self.vocab = bound.vocab if bound is not None else np.zeros(2, np.int64)
        self.states = [state.copy() for _ in range(pairs.nparts)]

    def __call__(self, p):
        ids, o, pairs = self.ids, self.options, self.pairs
        done = 0
        while True:
            done = count_pairs(self.piece, done, self.cut, ids.n_ident, ids.key_extra, ids.conn_model, ids.conn_extra,
                               self.run_at, self.use_runs, o.cross_lines, o.chunk, o.max_run, p, pairs.nparts,
                               pairs.tables[p], pairs.fill[p], pairs.limit(p), self.unigram, self.states[p],
                               self.vocab_limit, self.vocab)
            if self.vocab[1]:
                self.bound.prune()
            elif done < self.cut:
                pairs.grow(p)
            if done == self.cut:
                return


def _with_last(blocks):
    """``(block, is_last)`` for each block of ``blocks``."""
    it = iter(blocks)
    prev = next(it, None)
    if prev is None:
        yield np.zeros(0, np.int32), True
        return
    for block in it:
        yield prev, False
        prev = block
    yield prev, True


class JoinTable:
    """One pass of joining: the phrases ``(a, run, b)`` of a layer and their look-up table."""

    def __init__(self, keys, runs, out):
        self.keys = np.ascontiguousarray(keys, np.int64)
        self.runs = np.ascontiguousarray(runs, np.int64)
        self.out = np.ascontiguousarray(out, np.int32)
        self.table = np.zeros((_slots(self.keys.size), table_width(self.runs.any())), np.int64)
        insert_entries(self.table, self.keys, self.runs, np.arange(self.keys.size, dtype=np.int64))
        self.filter = np.zeros(_filter_words(self.keys.size), np.uint64)
        fill_filter(self.table, self.filter)
        a, b = self.keys >> 32, self.keys & 0xFFFFFFFF
        self.role = np.zeros(int(max(a.max(), b.max())) + 1 if self.keys.size else 0, np.int8)
        self.role[a] |= 1
        self.role[b] |= 2

    def __len__(self):
        return int(self.keys.size)


def _filter_words(entries):
    """uint64 words of a :class:`JoinTable`'s filter: 16 to 32 bits per entry (3-6% false
    positives), a power of two from 1,024 bits to 16 MiB."""
    return min(1 << 21, max(16, _next_pow2(entries) // 4))


def token_flags(keys, connector, join):
    """The flags :func:`w2v.kernels.phrases.join_phrases` reads for stream ids that stand for model
    tokens ``keys`` (``-1``: unknown), with connector flags ``connector``, for the pass ``join``:
    int8, 1: a connector; 2: starts a phrase; 4: ends one."""
    role = join.role
    out = np.asarray(connector, np.int8).copy()
    known = (keys >= 0) & (keys < role.size)
    out[known] |= (role[keys[known]] << 1).astype(np.int8)
    return out


def join_flags(stream_ids, join):
    """``(flags_model, flags_extra)`` of :func:`token_flags` for the ids of ``stream_ids``."""
    return (token_flags(np.arange(stream_ids.n_ident), stream_ids.conn_model, join),
            token_flags(stream_ids.key_extra.astype(np.int64), stream_ids.conn_extra, join))


def join_ids(ids, final, stream_ids, join, phrase_out, runs, chunk, max_run, state, counts=None, flags=None):
    """Join the phrases of ``ids`` (:func:`w2v.kernels.phrases.join_phrases`):
    ``(consumed, joined ids)``; ``phrase_out`` gives each phrase's stream id, ``counts``
    (optional, per stream id) receives the counts of the ids written, ``flags`` are
    :func:`join_flags`' (computed if not given)."""
    out = np.empty(ids.size, np.int32)
    count_out = counts is not None
    if counts is None:
        counts = np.zeros(1, np.int64)
    flags_model, flags_extra = flags if flags is not None else join_flags(stream_ids, join)
    consumed, written = join_phrases(ids, ids.size, final, stream_ids.n_ident, stream_ids.key_extra, flags_model,
                                     flags_extra, chunk, max_run, join.table, join.filter, phrase_out, runs.rtab,
                                     runs.rhash, runs.roff, runs.pool, state, out, counts, count_out)
    return consumed, out[:written]


def join_stream(stream, stream_ids, join, phrase_out, runs, chunk, max_run, counts=None):
    """Join the phrases of an :class:`~w2v.text.encoded.IdStream` in place (it ends with a sentence end).

    ``counts`` (optional, per stream id) receives the counts of the joined stream.
    """
    state = np.zeros(1, np.int64)
    carry = [np.zeros(0, np.int32)]
    flags = join_flags(stream_ids, join)

    def transform(block):
        piece = np.concatenate([carry[0], block]) if carry[0].size else np.ascontiguousarray(block, np.int32)
        consumed, out = join_ids(piece, False, stream_ids, join, phrase_out, runs, chunk, max_run, state, counts,
                                 flags)
        carry[0] = piece[consumed:].copy()
        return out

    stream.rewrite(transform, block=PIECE_IDS)
    if carry[0].size:   # the stream did not end a sentence: its last words are left as they are
        raise ParameterError("an id stream to join must end with a sentence end")


def check_threads(threads):
    """The number of counting threads (``None``: 1)."""
    if threads is None:
        return 1
    if not is_integer(threads) or not 1 <= threads <= 256:
        raise ParameterError(f"threads must be an integer from 1 to 256 (got {threads!r})")
    return int(threads)
