"""Phrases: collocations such as ``new york`` detected from counts and joined into one token.

The API is gensim 4's (:class:`Phrases`, :class:`FrozenPhrases`,
:data:`ENGLISH_CONNECTOR_WORDS`, :func:`original_scorer`, :func:`npmi_scorer`);
the engine counts over int32 ids in Numba kernels (:mod:`w2v.phrases.tables`).
Three scorings follow their references' exact rules: ``"word2vec"``
(word2vec.c's ``word2phrase``), ``"gensim"`` (gensim's ``"default"``) and
``"npmi"``; a scoring function of gensim's signature is called as gensim calls
it (:mod:`w2v.phrases.scoring`).  Joining is greedy from the left; with
connector words a phrase may hold connectors between its two ends
(``bank_of_america``).  ``model[corpus]`` is a :class:`~w2v.phrases.joining.PhrasedCorpus`,
read again at each iteration, as gensim's ``TransformedCorpus``.
docs/phrases.md gives the rules of each scoring, and where w2v differs from a
reference on purpose: a token that holds the delimiter is a word of its own,
never merged with the pair it spells, and words are read whole.
"""
import os

import numpy as np

from . import tables as phrase_tables
from ..errors import ParameterError
from ..text.encoded import DEFAULT_MEMORY_BUDGET, IdStream
from ..text.scanning import scan_corpus
from .joining import PhraseJoining
from .scoring import is_phrase, npmi_scorer, original_scorer, score_pairs
from .settings import ENGLISH_CONNECTOR_WORDS, PhraseSettings
from .tables import (CountOptions, JoinTable, PairCounts, RunTable, StreamIds, VocabBound, check_threads, count_stream,
                     join_flags, join_ids, prune_counts, token_flags)

__all__ = ["ENGLISH_CONNECTOR_WORDS", "Phrases", "FrozenPhrases", "PhraseSettings", "original_scorer",
           "npmi_scorer", "load_phrases"]

BATCH_TOKENS = 1 << 16   # tokens of Python sentences converted at a time


def _is_paths(obj):
    """A path, or a list or tuple of paths: files to read (anything else is sentences)."""
    if isinstance(obj, (str, os.PathLike)):
        return True
    return isinstance(obj, (list, tuple)) and len(obj) > 0 and all(isinstance(x, (str, os.PathLike)) for x in obj)


class Phrases(PhraseJoining):
    """Detect phrases from unigram and pair counts (gensim's ``Phrases``, counted in Numba).

    Parameters
    ----------
    sentences : iterable of list of str, or str, os.PathLike, or list of them, optional
        A corpus of sentences, or corpus files, folders or ``"-"`` read as
        ``w2v train`` reads them (a list of strings is a list of paths).
    min_count : int
        Words and pairs seen fewer times never join (see the module doc for each scoring).
    threshold : float
        A pair joins when its score is above it.  ``npmi``: in [-1, 1].
    max_vocab_size : int
        The most words and pairs held: after a sentence that holds more, the rarest are pruned
        as gensim prunes them (:class:`w2v.phrases.tables.VocabBound`); with the ``word2vec``
        scoring, the most pairs, pruned as word2vec.c prunes
        (:class:`w2v.phrases.tables.PairCounts`).
    delimiter : str
        Joins the tokens of a phrase.
    progress_per : int
        Accepted for gensim's signature; unused.
    scoring : {"default", "gensim", "word2vec", "npmi"} or callable
        A function of gensim's signature ``(worda_count, wordb_count, bigram_count, len_vocab,
        min_count, corpus_word_count)`` is called for each pair (:mod:`w2v.phrases.scoring`).
    connector_words : set of str
        Words that may stand inside a phrase but never start or end one.
    threads : int, optional
        Counting threads (default 1).
    tokenizer, lowercase, max_sentence_length, memory_budget, allow_binary
        For files, as :class:`w2v.settings.Settings`; ``max_sentence_length``
        also bounds a run of connector words.

    Raises
    ------
    ParameterError
        An invalid setting (``min_count`` below 1, a threshold out of range, ...).
    CorpusError
        Unreadable or empty corpus files.
    """

    def __init__(self, sentences=None, min_count=5, threshold=10.0, max_vocab_size=40_000_000, delimiter="_",
                 progress_per=10000, scoring="default", connector_words=frozenset(), *, threads=None,
                 tokenizer="whitespace", lowercase=False, max_sentence_length=10000,
                 memory_budget=DEFAULT_MEMORY_BUDGET,
                 allow_binary=False):
        self.settings = PhraseSettings(min_count=min_count, threshold=threshold, scoring=scoring, delimiter=delimiter,
                                       connector_words=connector_words, max_table_size=max_vocab_size,
                                       max_sentence_length=max_sentence_length)
        self.threads = check_threads(threads)
        self.read_options = dict(tokenizer=tokenizer, lowercase=lowercase, memory_budget=memory_budget,
                                 allow_binary=allow_binary)
        self.progress_per = progress_per
        self.tokens = []
        self._index = {}
        self._unigram = np.zeros(0, np.int64)
        self._connector = np.zeros(0, np.bool_)
        self.pairs = PairCounts(self.threads, self.settings.max_table_size, runs=bool(self.settings.connector_words))
        self.runs = RunTable()
        self.corpus_word_count = 0
        self._frozen_cache = None
        if sentences is not None:
            self.add_vocab(sentences)

    # gensim's attribute names
    min_count = property(lambda self: self.settings.min_count)
    threshold = property(lambda self: self.settings.threshold)
    scoring = property(lambda self: self.settings.scoring)
    delimiter = property(lambda self: self.settings.delimiter)
    connector_words = property(lambda self: self.settings.connector_words)
    max_vocab_size = property(lambda self: self.settings.max_table_size)
    min_reduce = property(lambda self: self.pairs.min_reduce)
    pruned = property(lambda self: self.pairs.pruned)

    def __str__(self):
        return (f"{type(self).__name__}<{self.len_vocab()} vocab, min_count={self.min_count}, "
                f"threshold={self.threshold}, max_vocab_size={self.max_vocab_size}>")

    __repr__ = __str__   # gensim's repr is object's; its summary says more

    # ------------------------------------------------------------------ tokens
    def use_tokens(self, tokens):
        """Take ``tokens`` (distinct strings; ids are their positions) before anything is counted,
        so that a stream of their ids can be counted as it is."""
        if self.tokens:
            raise ParameterError("use_tokens needs a model without tokens")
        self.tokens = list(tokens)
        self._index = None   # built when a word must be looked up (a stream of these ids needs none)
        self._grow()

    def connector_flags(self):
        """Whether each token is a connector word (a copy)."""
        return self._connector[:len(self.tokens)].copy()

    def add_tokens(self, words):
        """Model ids of ``words`` (strings), new words appended; return an int32 array."""
        index = self._word_index()
        ids = np.empty(len(words), np.int32)
        for i, w in enumerate(words):
            k = index.get(w)
            if k is None:
                k = self._new_token(w)
            ids[i] = k
        self._grow()
        return ids

    def _new_token(self, word):
        if not isinstance(word, str) or not word:
            raise ParameterError(f"a token must be a non-empty string, not {word!r}")
        k = len(self.tokens)
        self._word_index()[word] = k
        self.tokens.append(word)
        return k

    def _word_index(self):
        if self._index is None:
            self._index = dict(zip(self.tokens, range(len(self.tokens))))
        return self._index

    def _grow(self):
        n = len(self.tokens)
        old = self._unigram.size
        if n > old:
            self._unigram = np.concatenate([self._unigram, np.zeros(n - old, np.int64)])
            conn = self.settings.connector_words
            flags = np.array([w in conn for w in self.tokens[old:]], np.bool_) if conn else np.zeros(n - old, np.bool_)
            self._connector = np.concatenate([self._connector, flags])

    # ------------------------------------------------------------------ counting
    def add_vocab(self, sentences):
        """Count the words and pairs of ``sentences`` (sentences or corpus files) into the model.

        Raises
        ------
        CorpusError
            Unreadable or empty corpus files.
        ParameterError
            A sentence that is a string, or a token that is not a non-empty string.
        """
        if _is_paths(sentences):
            paths = [os.fspath(sentences)] if isinstance(sentences, (str, os.PathLike)) else \
                [os.fspath(p) for p in sentences]
            scanned = scan_corpus(paths, threads=self.threads, **self.read_options)
            try:
                self.count_scanned(scanned.stream, scanned.words, from_files=True)
            finally:
                scanned.stream.close()
            return
        stream = self._sentence_stream(sentences)
        try:
            self.count_stream(stream, StreamIds.identity(self._connector), from_files=False)
        finally:
            stream.close()

    def _sentence_stream(self, sentences):
        stream = IdStream(self.read_options["memory_budget"])
        index = self._word_index()
        buf = []
        for sentence in sentences:
            if isinstance(sentence, str):
                stream.close()
                raise ParameterError("a sentence must be a list of tokens, not a string")
            for w in sentence:
                k = index.get(w)
                buf.append(self._new_token(w) if k is None else k)
            buf.append(-1)
            if len(buf) >= BATCH_TOKENS:
                stream.append(np.array(buf, np.int32))
                buf.clear()
        stream.append(np.array(buf, np.int32))
        stream.finish()
        self._grow()
        return stream

    def count_scanned(self, stream, words, from_files=True):
        """Count an id stream whose ids name ``words`` (a scanned corpus' provisional ids)."""
        key_of = self.add_tokens(words)
        self.count_stream(stream, StreamIds.mapped(key_of, self._connector[key_of]), from_files)

    def count_stream(self, stream, ids, from_files):
        """Count an :class:`~w2v.text.encoded.IdStream` whose ids ``ids`` (:class:`StreamIds`) map to model
        tokens; ``from_files``: its lines are cut every ``max_sentence_length`` tokens for the
        gensim scorings, as gensim reads files."""
        s = self.settings
        options = CountOptions(cross_lines=s.cross_lines, chunk=s.chunk(from_files), max_run=s.max_sentence_length,
                               threads=self.threads)
        size = phrase_tables.PIECE_IDS   # read now: tests set it small, so that pieces end everywhere
        blocks = (stream.read(i, size) for i in range(0, stream.length, size))
        self._frozen_cache = None
        if s.scoring == "word2vec" or self.len_vocab() + 2 * stream.length <= s.max_table_size:
            # word2vec.c's bound, after each piece; or gensim's, which this stream cannot reach
            self.pairs.presize(phrase_tables.expected_pairs(stream.length))
            self.corpus_word_count += count_stream(blocks, ids, self._unigram, self.pairs, self.runs, options)
        elif self.len_vocab() == 0:
            self._count_bounded(blocks, ids, options, stream.length, self._unigram, self.pairs)
        else:
            self._count_and_merge(blocks, ids, options, stream.length)

    def _count_bounded(self, blocks, ids, options, length, unigram, pairs):
        """Count ``length`` ids under gensim's bound into ``unigram`` and ``pairs``; return the bound."""
        pairs.presize(phrase_tables.expected_pairs(length))
        bound = VocabBound(self.settings.max_table_size, unigram, self._connector, pairs)
        self.corpus_word_count += count_stream(blocks, ids, unigram, pairs, self.runs, options, bound)
        self.pairs.pruned = self.pairs.pruned or bound.dropped
        return bound

    def _count_and_merge(self, blocks, ids, options, length):
        """gensim's ``add_vocab`` on a model with counts: count apart under the bound, add, and prune
        the sum once if it holds more than ``max_vocab_size`` (``min_reduce`` is the larger of the
        model's and the count's, and grows by one)."""
        unigram = np.zeros_like(self._unigram)
        pairs = PairCounts(self.pairs.nparts, self.pairs.max_entries, runs=self.pairs.width == 3)
        bound = self._count_bounded(blocks, ids, options, length, unigram, pairs)
        self._unigram += unigram
        self.pairs.add(*pairs.entries(ordered=False))
        self.pairs.min_reduce = max(self.pairs.min_reduce, bound.min_reduce)
        if self.len_vocab() > self.settings.max_table_size:
            self.pairs.pruned = prune_counts(self._unigram, self._connector, self.pairs, self.pairs.min_reduce) \
                or self.pairs.pruned
            self.pairs.min_reduce += 1

    @property
    def unigram_counts(self):
        """Counts per token (int64, a copy), connector words included."""
        return self._unigram[:len(self.tokens)].copy()

    # ------------------------------------------------------------------ scores
    def len_vocab(self):
        """gensim's ``len(vocab)``: distinct words (connectors excepted) and pairs counted."""
        return int(np.count_nonzero((self._unigram > 0) & ~self._connector)) + len(self.pairs)

    def phrase_pairs(self):
        """The pairs that are phrases: ``(keys, runs, scores)`` (``key = a << 32 | b``), sorted."""
        s = self.settings
        # a pair seen fewer than min_count times is never a phrase under the built-in scorings
        keys, runs, counts = self.pairs.entries(1 if callable(s.scoring) else s.min_count, ordered=False)
        if s.scoring != "word2vec":   # gensim scores no pair of a word it pruned (its count is 0)
            held = (self._unigram[keys >> 32] > 0) & (self._unigram[keys & 0xFFFFFFFF] > 0)
            keys, runs, counts = keys[held], runs[held], counts[held]
        scores = score_pairs(s.scoring, keys, counts, self._unigram, s.min_count, self.corpus_word_count,
                             self.len_vocab())
        keep = np.flatnonzero(is_phrase(s.scoring, scores, s.threshold))
        keep = keep[np.lexsort((runs[keep], keys[keep]))]
        return keys[keep], runs[keep], scores[keep].astype(np.float64)

    def export_phrases(self):
        """Every phrase the counts make, with its score (gensim's ``export_phrases``).

        Returns
        -------
        dict of str to float
        """
        return self._frozen().phrasegrams

    def freeze(self):
        """The phrases alone, to join with (gensim's ``freeze``): a :class:`FrozenPhrases`."""
        return FrozenPhrases(self)

    def _frozen(self):
        if self._frozen_cache is None:
            self._frozen_cache = FrozenPhrases(self)
        return self._frozen_cache

    @property
    def vocab(self):
        """Counts by token as gensim keeps them: each word, and each pair joined by the delimiter.

        Built on each call (for inspection and tests), so avoid it on large models.
        """
        d = self.delimiter
        out = {w: int(c) for w, c in zip(self.tokens, self._unigram.tolist()) if c > 0
               and w not in self.connector_words}
        keys, runs, counts = self.pairs.entries()
        for key, run, count in zip(keys.tolist(), runs.tolist(), counts.tolist()):
            out[d.join(self.phrase_tokens(key, run))] = int(count)
        return out

    def phrase_tokens(self, key, run):
        """The tokens of the pair ``key`` with connector run ``run``: ``[a, *connectors, b]``."""
        middle = [self.tokens[t] for t in self.runs.run(run).tolist()] if run else []
        return [self.tokens[key >> 32], *middle, self.tokens[key & 0xFFFFFFFF]]

    # ------------------------------------------------------------------ files
    def save(self, path):
        """Save the counts in the folder ``path`` (JSON, a words file and ``.npy`` arrays; no pickle),
        atomically.  See :mod:`w2v.phrases.files`."""
        from .files import save_counts   # start-up: loads scipy.linalg (+0.3 s), for files only
        save_counts(path, self)

    @classmethod
    def load(cls, path):
        """Load a model saved by :meth:`save`.

        Raises
        ------
        FormatError
            A missing, corrupt or foreign model folder (the message names the file).
        """
        from .files import load_counts   # start-up: loads scipy.linalg (+0.3 s), for files only
        return load_counts(cls, path)

    def restore(self, tokens, unigram, keys, runs, counts, run_offsets, run_tokens, corpus_word_count, min_reduce,
                pruned):
        """Install saved counts (what :func:`w2v.phrases.files.load_counts` read and checked)."""
        self.tokens = list(tokens)
        self._index = {w: i for i, w in enumerate(self.tokens)}
        self._unigram = np.zeros(0, np.int64)
        self._connector = np.zeros(0, np.bool_)
        self._grow()
        self._unigram[:] = unigram
        self.runs = RunTable.from_arrays(run_offsets, run_tokens)
        self.pairs.add(keys, runs, counts)
        self.pairs.min_reduce = int(min_reduce)
        self.pairs.pruned = bool(pruned)
        self.corpus_word_count = int(corpus_word_count)
        self._frozen_cache = None
        return self


class FrozenPhrases(PhraseJoining):
    """The phrases of a model, to join with (gensim's ``FrozenPhrases``); one layer per pass.

    ``FrozenPhrases(phrases)`` takes the phrases of a :class:`Phrases`.  A
    model learned in several passes (``w2v phrases --passes``) joins them in
    turn: the second pass's phrases are made of the first pass's tokens.

    Attributes
    ----------
    phrasegrams : dict of str to float
        Every phrase and its score (a dict built on each access).
    passes : int
    """

    def __init__(self, phrases_model=None, settings=None):
        if phrases_model is not None:
            settings = phrases_model.settings
        self.settings = settings if settings is not None else PhraseSettings()
        self.tokens = []
        self._index = {}
        self.runs = RunTable()
        self.layers = []      # per pass: (JoinTable, scores)
        self.pruned = False
        self._connector_cache = None
        self._flags_cache = {}
        if phrases_model is not None:
            self.tokens = list(phrases_model.tokens)
            self._index = dict(phrases_model._word_index())
            keys, runs, scores = phrases_model.phrase_pairs()
            self.add_layer(keys, runs, scores, phrases_model.runs, phrases_model.tokens)
            self.pruned = phrases_model.pruned

    min_count = property(lambda self: self.settings.min_count)
    threshold = property(lambda self: self.settings.threshold)
    scoring = property(lambda self: self.settings.scoring)
    delimiter = property(lambda self: self.settings.delimiter)
    connector_words = property(lambda self: self.settings.connector_words)
    passes = property(lambda self: len(self.layers))

    def __str__(self):
        return (f"{type(self).__name__}<{self.distinct_phrases()} phrases, min_count={self.min_count}, "
                f"threshold={self.threshold}>")

    __repr__ = __str__   # gensim's repr is object's; its summary says more

    def distinct_phrases(self):
        """The phrases as distinct strings (gensim's ``len(phrasegrams)``), over every pass."""
        return int(np.unique(self._phrase_tokens()).size)

    def __len__(self):
        return sum(len(j) for j, _ in self.layers)

    def _frozen(self):
        return self

    @classmethod
    def on_tokens(cls, settings, tokens):
        """A model without phrases yet whose tokens are ``tokens`` (distinct strings)."""
        model = cls(settings=settings)
        model.tokens = list(tokens)
        model._index = dict(zip(model.tokens, range(len(model.tokens))))
        return model

    def token_id(self, word):
        """The id of ``word`` among the model's tokens, added if new."""
        k = self._index.get(word)
        if k is None:
            k = len(self.tokens)
            self._index[word] = k
            self.tokens.append(word)
        return k

    def add_layer(self, keys, runs, scores, source_runs, source_tokens):
        """Add a pass: the phrases ``(keys, runs)`` of tokens ``source_tokens`` (runs from ``source_runs``).

        The phrase strings become tokens (a string already known keeps its id).
        """
        d = self.delimiter
        a = (keys >> 32).tolist()
        b = (keys & 0xFFFFFFFF).tolist()
        ids = {}
        new_runs = np.zeros(keys.size, np.int64)
        out = np.empty(keys.size, np.int32)
        own = source_tokens is self.tokens
        for i, (x, y, r) in enumerate(zip(a, b, runs.tolist())):
            middle = [source_tokens[t] for t in source_runs.run(r).tolist()] if r else []
            parts = [source_tokens[x], *middle, source_tokens[y]]
            if r:
                if r not in ids:
                    ids[r] = self.runs.intern([self.token_id(t) for t in middle])
                new_runs[i] = ids[r]
            if not own:
                x, y = self.token_id(parts[0]), self.token_id(parts[-1])
            a[i], b[i] = x, y
            out[i] = self.token_id(d.join(parts))
        new_keys = (np.asarray(a, np.int64) << 32) | np.asarray(b, np.int64)
        self.layers.append((JoinTable(new_keys, new_runs, out), np.asarray(scores, np.float64)))

    @property
    def phrasegrams(self):
        result = {}
        for join, scores in self.layers:
            for k, score in zip(join.out.tolist(), scores.tolist()):
                result[self.tokens[k]] = score
        return result

    def export_phrases(self):
        """Every phrase and its score (as :attr:`phrasegrams`)."""
        return self.phrasegrams

    def connector_flags(self):
        """Whether each token is a connector word."""
        conn = self.connector_words
        if not conn:
            return np.zeros(len(self.tokens), np.bool_)
        return np.array([w in conn for w in self.tokens], np.bool_)

    # ------------------------------------------------------------------ joining strings
    def join_sentences(self, sentences, mark=False):
        """Join the phrases of ``sentences`` (lists of str); with ``mark``, each token comes as
        ``(token, joined)``.

        Unknown words stand for themselves; a phrase of a pass gets a temporary id above every
        token, so that the output tells joined tokens from words that read the same.
        """
        index = self._index
        n = len(self.tokens)
        extra = {}
        ids = []
        for sentence in sentences:
            if isinstance(sentence, str):
                raise ParameterError("a sentence must be a list of tokens, not a string")
            for w in sentence:
                k = index.get(w)
                if k is None:
                    k = extra.setdefault(w, n + len(extra))
                ids.append(k)
            ids.append(-1)
        arr = np.array(ids, np.int32)
        extra_words = list(extra)
        phrase_tokens = self._phrase_tokens()
        conn = self.connector_words
        stream_ids = StreamIds(n, np.concatenate([np.full(len(extra_words), -1, np.int32), phrase_tokens]),
                               self._connector_flags(),
                               np.concatenate([np.array([w in conn for w in extra_words], np.bool_),
                                               np.zeros(phrase_tokens.size, np.bool_)]))
        base = n + len(extra_words)
        first = 0
        for k, (join, _) in enumerate(self.layers):
            out = np.arange(base + first, base + first + len(join), dtype=np.int32)
            flags = (self._model_flags(k),
                     token_flags(stream_ids.key_extra.astype(np.int64), stream_ids.conn_extra, join))
            _, arr = join_ids(arr, True, stream_ids, join, out, self.runs, 0, self.settings.max_sentence_length,
                              np.zeros(1, np.int64), flags=flags)
            first += len(join)
        words = self.tokens
        sentences_out = []
        current = []
        for t in arr.tolist():
            if t < 0:
                sentences_out.append(current)
                current = []
                continue
            if t < n:
                word, joined = words[t], False
            elif t < base:
                word, joined = extra_words[t - n], False
            else:
                word, joined = words[phrase_tokens[t - base]], True
            current.append((word, joined) if mark else word)
        return sentences_out

    def _model_flags(self, k):
        """The join flags of the model's tokens for pass ``k`` (cached while the tokens stay)."""
        cache = self._flags_cache
        if cache.get("tokens") != len(self.tokens):
            cache.clear()
            cache["tokens"] = len(self.tokens)
        if k not in cache:
            ids = StreamIds.identity(self._connector_flags())
            cache[k] = join_flags(ids, self.layers[k][0])[0]
        return cache[k]

    def _phrase_tokens(self):
        """The token of every phrase, pass after pass."""
        if not self.layers:
            return np.zeros(0, np.int32)
        return np.concatenate([join.out for join, _ in self.layers])

    def _connector_flags(self):
        flags = self._connector_cache
        if flags is None or flags.size != len(self.tokens):
            flags = self._connector_cache = self.connector_flags()
        return flags

    # ------------------------------------------------------------------ files
    def save(self, path):
        """Save the phrases in the folder ``path`` (JSON, a words file and ``.npy`` arrays; no pickle),
        atomically.  See :mod:`w2v.phrases.files`."""
        from .files import save_frozen   # start-up: loads scipy.linalg (+0.3 s), for files only
        save_frozen(path, self)

    @classmethod
    def load(cls, path):
        """Load phrases saved by :meth:`save` (or the counts saved by :meth:`Phrases.save`, frozen).

        Raises
        ------
        FormatError
            A missing, corrupt or foreign model folder (the message names the file).
        """
        model = load_phrases(path)
        return model if isinstance(model, FrozenPhrases) else model.freeze()


def load_phrases(path):
    """Load a phrase model folder: a :class:`Phrases` (counts) or a :class:`FrozenPhrases`.

    Raises
    ------
    FormatError
        A missing, corrupt or foreign model folder (the message names the file).
    """
    from .files import load_any   # start-up: loads scipy.linalg (+0.3 s), for files only
    return load_any(Phrases, FrozenPhrases, path)
