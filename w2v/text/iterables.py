"""Iterable corpora: sentences given as lists of ``str`` tokens, turned into the encoded id stream.

:func:`scan_sentences` reads a restartable iterable of token lists once (a
``LineSentence``, a list of lists, a class of the user's) and gives the same
:class:`w2v.text.scanning.ScannedCorpus` as a scan of files: the distinct words in
order of first occurrence, their exact counts, and the provisional ids in an
:class:`w2v.text.encoded.IdStream` (in RAM up to the memory budget, then in a
temporary file), with ``-1`` after every sentence.  From there the corpus is
encoded and trained exactly as a path corpus is; no epoch touches the
iterable again, and no sentence is kept as Python objects.

The Python side costs one ``" ".join`` per sentence: each batch of about
:data:`BATCH_TOKENS` tokens is joined into UTF-8 bytes, which the byte scanner
of the files (:mod:`w2v.kernels.tokenize`, no GIL) splits and counts in a
second thread while this one joins the next batch.  A batch whose tokens the
byte scanner would not give back one for one (a token that is empty, holds
whitespace, or is not a ``str``) is checked before it is counted, and from
there on the tokens are counted through a dict, one look-up per token: the ids
and counts are the same either way.

:class:`CorpusSource` is what ``build_vocab``/``train`` were given: paths, or
an iterable (read through its files when it is a file-backed corpus, see
:func:`w2v.text.sentences.file_backed`).
"""
import itertools
import os
import weakref
from collections import defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .scanning import ScannedCorpus
from .encoded import DEFAULT_MEMORY_BUDGET, SENTINEL, IdStream
from ..errors import CorpusError, ParameterError

__all__ = ["BATCH_TOKENS", "CorpusSource", "corpus_source", "scan_sentences", "line_sentences"]

BATCH_TOKENS = 1 << 16       # tokens joined and counted at a time
BATCH_SENTENCES = 1 << 13    # sentences at most per batch (many short or empty ones)


class CorpusSource:
    """A corpus as ``build_vocab``/``train`` were given it: paths, or an iterable of sentences.

    Parameters
    ----------
    paths : list of str, optional
        Files, folders or ``"-"`` to read (also those of a file-backed iterable).
    iterable : iterable of list of str, optional
        The sentences; kept by weak reference where the object allows one
        (a list is kept as is), so that :meth:`is_same` recognises it.

    The reader of the corpus records what it read in ``n_sentences``,
    ``n_tokens``, ``files`` and ``file_stats``.
    """

    def __init__(self, paths=None, iterable=None):
        self.paths = paths
        self.phrases = None         # phrases joined into the ids as it is read (w2v.phrases.corpus)
        self.n_sentences = None     # once read: gensim's corpus_count of it
        self.n_tokens = None        # once read: its tokens (corpus_total_words)
        self.files = None           # once read: its files as absolute paths (None for sentences)
        self.file_stats = None      # once read: (path, size, mtime) of its regular files, else None
        self._ref = None
        self._length = None
        if iterable is not None:
            try:
                self._ref = weakref.ref(iterable)
            except TypeError:                       # list, tuple: kept alive by the model
                self._ref = lambda obj=iterable: obj
            try:
                self._length = len(iterable)
            except TypeError:
                pass

    @property
    def iterable(self):
        """The iterable (``None`` for paths, or once it has been garbage collected)."""
        return None if self._ref is None else self._ref()

    @property
    def reads_files(self):
        """Whether the corpus is read from :attr:`paths` (a path corpus or a file-backed iterable)."""
        return self.paths is not None

    def is_same(self, iterable):
        """Whether ``iterable`` is the object this source was made from, of the same length if it has one."""
        if iterable is None or self.iterable is not iterable:
            return False
        try:
            return len(iterable) == self._length
        except TypeError:
            return True


def corpus_source(corpus_iterable=None, corpus_file=None, passes=1, file_backed=None):
    """The :class:`CorpusSource` of ``build_vocab``/``train``'s corpus arguments, or ``None`` when none is given.

    ``corpus_iterable`` is read as paths when it is a ``str``, an
    ``os.PathLike`` or a list of them (w2v's ``train("corpus.txt")``), else
    as an iterable of sentences; ``corpus_file`` is a path.

    Parameters
    ----------
    passes : int
        How many times gensim would iterate the corpus; an iterator (a
        generator, ``iter(...)``) can be read once only, so more than one
        pass is refused, as gensim refuses it.
    file_backed : callable, optional
        ``file_backed(iterable) -> paths or None``: the files of a corpus that
        is read faster from them (:func:`w2v.text.sentences.file_backed`).

    Raises
    ------
    ParameterError
        Both arguments given, a ``corpus_file`` that is not a path, a
        ``corpus_iterable`` that is not iterable, or a one-shot iterator with
        ``passes`` > 1.
    """
    if corpus_iterable is not None and corpus_file is not None:
        raise ParameterError("give corpus_iterable (sentences) or corpus_file, not both")
    if corpus_file is not None:
        if not isinstance(corpus_file, (str, os.PathLike)):
            raise ParameterError(f"corpus_file must be a path, not {type(corpus_file).__name__}")
        return CorpusSource(paths=[corpus_file])
    if corpus_iterable is None:
        return None
    if isinstance(corpus_iterable, (str, bytes, os.PathLike)):
        return CorpusSource(paths=[corpus_iterable])
    if isinstance(corpus_iterable, (list, tuple)) and corpus_iterable and all(
            isinstance(p, (str, os.PathLike)) for p in corpus_iterable):
        first = os.fspath(corpus_iterable[0])
        if not os.path.lexists(first) and any(c.isspace() for c in first):
            raise CorpusError(f"no file {first!r}: a list of str is read as file paths; give sentences as "
                              "lists of tokens")
        return CorpusSource(paths=list(corpus_iterable))
    if not isinstance(corpus_iterable, Iterable):
        raise ParameterError(f"the corpus must be paths or an iterable of lists of str tokens, "
                             f"not {type(corpus_iterable).__name__}")
    if isinstance(corpus_iterable, Iterator) and passes > 1:
        raise ParameterError(f"the corpus is an iterator ({type(corpus_iterable).__name__}), which can be read "
                             f"once, but this call needs {passes} passes (as in gensim): give a restartable "
                             "iterable, such as a list or a class whose __iter__ starts over")
    paths = file_backed(corpus_iterable) if file_backed is not None else None
    return CorpusSource(paths=paths, iterable=corpus_iterable)


def _batches(sentences):
    """Lists of sentences of about :data:`BATCH_TOKENS` tokens; sentences without a length become lists."""
    batch = []
    size = 0
    for number, sentence in enumerate(sentences):
        try:
            n = len(sentence)
        except TypeError:
            try:
                sentence = list(sentence)
            except TypeError:
                raise CorpusError(f"sentence {number} is a {type(sentence).__name__}, not a list of str "
                                  "tokens") from None
            n = len(sentence)
        batch.append(sentence)
        size += n
        if size >= BATCH_TOKENS or len(batch) >= BATCH_SENTENCES:
            yield batch
            batch = []
            size = 0
    if batch:
        yield batch


def _with_sentinels(ids, lens):
    """``ids`` with ``SENTINEL`` after each sentence of ``lens`` tokens (empty ones too)."""
    return np.insert(ids, np.cumsum(lens), SENTINEL).astype(np.int32, copy=False)


class _SentenceScan:
    """The state of :func:`scan_sentences`: byte counting in a second thread, or a dict after a switch."""

    def __init__(self, stream):
        from ..kernels.tokenize import ByteVocabulary, TokenItems   # start-up: Numba (0.5 s) only to scan
        self.stream = stream
        self.vocab = ByteVocabulary()
        self.items = TokenItems()
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="w2v-sentences")
        self.pending = None          # (future, batch, lens) of the batch being counted
        self.index = None            # word -> provisional id, once counting goes through a dict
        self.counts = None
        self.n_tokens = 0
        self.n_sentences = 0

    def add(self, batch):
        """Count one batch of sentences (after the one in flight)."""
        if str in map(type, batch):
            number = self.n_sentences + list(map(type, batch)).index(str)
            raise CorpusError(f"sentence {number} is a str, not a list of tokens: split it into words first "
                              "(gensim would train on its characters)")
        lens = np.fromiter(map(len, batch), np.int64, len(batch))
        self.n_sentences += len(batch)
        self.n_tokens += int(lens.sum())
        data = None
        if self.index is None:
            try:
                data = " ".join(map(" ".join, filter(len, batch))).encode("utf-8")
            except (TypeError, UnicodeEncodeError):   # a token that is not a str, or a lone surrogate
                data = None
        self.collect()
        if data is None:
            self.count_in_dict(batch, lens)
        else:
            self.pending = (self.pool.submit(self.count_bytes, data, lens), batch, lens)

    def count_bytes(self, data, lens):
        """Split, check and count ``data`` (the batch joined by spaces) in the byte vocabulary, in one
        call without the GIL; return its ids with sentinels, or ``None`` when the split does not give
        back the batch's tokens one for one (nothing is counted then)."""
        out = np.empty(int(lens.sum()) + lens.size, np.int32)
        ok = self.vocab.count_sentences(np.frombuffer(data, np.uint8), self.items, lens, out)
        return out if ok else None

    def collect(self):
        """Wait for the batch in flight; its ids go to the stream, or it is counted through a dict."""
        if self.pending is None:
            return
        future, batch, lens = self.pending
        self.pending = None
        ids = future.result()
        if ids is None:
            self.count_in_dict(batch, lens)
        else:
            self.stream.append(ids)

    def count_in_dict(self, batch, lens):
        """Count a batch through the dict of words (switching to it on the first such batch)."""
        if self.index is None:
            words = self.vocab.words()
            self.index = defaultdict(itertools.count(len(words)).__next__, zip(words, range(len(words))))
            self.counts = self.vocab.counts[:len(words)].copy()
        index = self.index
        n = int(lens.sum())
        try:
            ids = np.fromiter(map(index.__getitem__, itertools.chain.from_iterable(batch)), np.int32, count=n)
        except TypeError as exc:
            raise CorpusError(f"a token is not hashable: tokens must be str ({exc})") from None
        if len(index) > self.counts.size:
            grown = np.zeros(max(len(index), 2 * self.counts.size), np.int64)
            grown[:self.counts.size] = self.counts
            self.counts = grown
        if ids.size:
            self.counts[:len(index)] += np.bincount(ids, minlength=len(index))
        self.stream.append(_with_sentinels(ids, lens))

    def result(self):
        """The words and their counts, in provisional-id order."""
        self.collect()
        if self.index is None:
            words = self.vocab.words()
            return words, self.vocab.counts[:len(words)].copy()
        words = list(self.index)
        wrong = next((w for w in words if not isinstance(w, str)), None)
        if wrong is not None:
            raise CorpusError(f"tokens must be str, not {type(wrong).__name__} ({wrong!r})")
        return words, self.counts[:len(words)].copy()

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


def scan_sentences(sentences, memory_budget=DEFAULT_MEMORY_BUDGET, tmpdir=None, progress=None):
    """Read an iterable of sentences once: count the words, record the provisional id stream.

    Parameters
    ----------
    sentences : iterable of list of str
        Each item a sentence: a list (or tuple, array, any sized iterable) of
        ``str`` tokens, used as given (no tokenizer, no lowercasing).
    memory_budget : int
        Bytes of ids kept in RAM before the stream spills to a temporary file.
    tmpdir : str, optional
    progress : callable, optional
        ``progress(tokens_read)``, after each batch.

    Returns
    -------
    w2v.text.scanning.ScannedCorpus
        ``n_sentences`` counts every sentence, empty ones too (gensim's
        ``corpus_count``); ``n_tokens`` every token (``corpus_total_words``);
        ``files`` is empty.

    Raises
    ------
    CorpusError
        A sentence that is a ``str`` (not split into tokens) or not iterable,
        a token that is not a ``str``, or no token at all.
    """
    stream = IdStream(memory_budget, tmpdir)
    scan = _SentenceScan(stream)
    try:
        for batch in _batches(sentences):
            scan.add(batch)
            if progress is not None:
                progress(scan.n_tokens)
        words, counts = scan.result()
    except BaseException:
        stream.close()
        raise
    finally:
        scan.close()
    stream.finish()
    if scan.n_tokens == 0:
        stream.close()
        raise CorpusError(f"corpus is empty: no token in its {scan.n_sentences:,} sentences")
    return ScannedCorpus(words, counts, stream, scan.n_tokens, scan.n_sentences, [])


def line_sentences(stream, max_sentence_length, block=1 << 22):
    """Sentences gensim's ``LineSentence`` would yield for a scanned file corpus.

    It yields every line holding a token, cut into pieces of at most
    ``max_sentence_length`` tokens: this counts them in a provisional id
    stream (``SENTINEL`` at every line end and file end).

    Returns
    -------
    int
    """
    total = 0
    run = 0          # tokens of the line so far (it may continue in the next block)
    for start in range(0, stream.length, block):
        ids = stream.read(start, block)
        ends = np.flatnonzero(ids == SENTINEL)
        if ends.size == 0:
            run += ids.size
            continue
        lengths = np.diff(ends, prepend=-1) - 1
        lengths[0] += run
        total += int(np.sum(-(-lengths // max_sentence_length)))
        run = ids.size - 1 - int(ends[-1])
    return total + -(-run // max_sentence_length)
