"""Reading a corpus for a :class:`~w2v.model.word2vec.Word2Vec`: the vocabulary pass, online updates, re-encoding.

A :class:`CorpusReader` belongs to one model and does its reading: it
scans a corpus (paths or an iterable of sentences, :mod:`w2v.text.iterables`)
once, counting the words and recording provisional ids, picks the
vocabulary from the counts (gensim's ``scan_vocab`` and ``prepare_vocab``
steps, or the counts of ``build_vocab_from_freq``), merges it into the
model's vocabulary for an online update, and encodes the ids for training;
or it encodes a corpus with a vocabulary as it is.  Phrases are joined into
the ids as they are read (:func:`w2v.phrases.corpus.phrase_scanned`).

The reader changes nothing in the model: each step returns what it read as
a :class:`CorpusRead` (the vocabulary, the encoded corpus, the source, the
totals, the timings), which the model installs.  What the reader keeps is
its own: a scanned corpus waiting for :meth:`CorpusReader.prepare`, and the
raw counts kept with ``keep_raw_vocab`` (gensim's ``raw_vocab``).

Which corpus ``train`` trains on (docs/gensim.md): the one read last, kept
by the model as :class:`w2v.text.iterables.CorpusSource`.  ``train(X)`` with
the very object ``X`` that was read (the same list or iterable, or the same
unchanged files, :func:`same_corpus`) trains on its encoding without reading
it again; any other ``X`` is read once, in that call, and every epoch
trains on its encoding.
"""
import dataclasses
import os
import time

import numpy as np

from ..errors import ParameterError, VocabularyError
from ..phrases.corpus import phrase_scanned
from ..text.encoded import encode_corpus
from ..text.iterables import corpus_source, line_sentences, scan_sentences
from ..text.scanning import scan_corpus
from ..text.sentences import file_backed
from ..text.vocab import build_vocab, final_vocab_min_count, kept_words, merge_vocab, vocab_ids
from ..training.kernelcalls import start_kernel_load
from ..training.progress import COMPILING, KernelWatch, Progress

__all__ = ["CorpusRead", "CorpusReader", "corpus_source_for", "same_corpus", "scan_with_progress"]

BUILDING = "building the vocabulary and encoding the corpus"


@dataclasses.dataclass
class CorpusRead:
    """What a :class:`CorpusReader` step read, for the model to install.

    Attributes
    ----------
    source : w2v.text.iterables.CorpusSource or None
        The corpus read; ``None`` for a vocabulary made from counts.
    n_sentences, n_tokens : int
        Sentences and raw tokens read (gensim's ``corpus_count`` and ``corpus_total_words``).
    files : list of str or None
        The corpus' files as absolute paths (``None`` for sentences).
    encoded : w2v.text.encoded.EncodedCorpus or None
        The corpus as ids of the vocabulary; ``None`` where nothing was encoded
        (a scan waiting for :meth:`CorpusReader.prepare`, a dry run, counts).
    vocab : w2v.text.vocab.Vocab or None
        A new or grown vocabulary; ``None`` where the model's stays as it is.
    grown_from : int or None
        An online update: how many words of the model's vocabulary ``vocab`` starts with.
    effective_min_count : int or None
        The ``min_count`` the vocabulary was picked with (``max_final_vocab`` may raise it).
    report : dict or None
        gensim's ``prepare_vocab`` report.
    seconds : float or None
        The time reading took, the time spent on the kernels left out.
    kernel_load_seconds : float or None
        The time the read waited for the training kernels loaded beside it.
    """

    source: object = None
    n_sentences: int = 0
    n_tokens: int = 0
    files: list = None
    encoded: object = None
    vocab: object = None
    grown_from: int = None
    effective_min_count: int = None
    report: dict = None
    seconds: float = None
    kernel_load_seconds: float = None


def corpus_source_for(settings, corpus_iterable=None, corpus_file=None, passes=1, phrases=None):
    """The :class:`~w2v.text.iterables.CorpusSource` of a call's corpus arguments, or ``None`` without one.

    Sentences backed by files (:func:`w2v.text.sentences.file_backed`) are
    read from the files, split and tokenized as ``settings`` say; ``phrases``
    are joined into the ids as the corpus is read.

    Raises
    ------
    ParameterError, CorpusError
        As :func:`w2v.text.iterables.corpus_source`.
    """
    s = settings
    source = corpus_source(corpus_iterable, corpus_file, passes,
                           lambda c: file_backed(c, s.max_sentence_length, s.tokenizer, s.lowercase))
    if source is not None:
        source.phrases = phrases
    return source


def _file_stats(paths):
    """``(path, size, mtime)`` of each of ``paths`` if all are regular files, else ``None`` (never reused)."""
    stats = []
    for p in paths:
        try:
            st = os.stat(p)
        except (OSError, TypeError, ValueError):
            return None
        if p == "-" or not os.path.isfile(p):
            return None
        stats.append((os.fspath(p), st.st_size, st.st_mtime_ns))
    return stats


def same_corpus(source, current):
    """Whether ``source`` is the corpus ``current`` (the source of an encoded corpus) was read from.

    The same iterable object, or the same files: regular files, unchanged in
    size and modification time since they were read.  A corpus with phrases
    joined is never the same (its phrases may differ).
    """
    if current is None or source.phrases is not None or current.phrases is not None:
        return False
    if source.iterable is not None and current.is_same(source.iterable):
        return True
    if source.paths is None or current.paths is None:
        return False
    stats = _file_stats(source.paths)
    return stats is not None and stats == current.file_stats


def scan_with_progress(corpus, settings, quiet=True, stream=None, next_step=BUILDING, allow_binary=False,
                       vocabulary=None):
    """Tokenize a corpus once (:func:`w2v.text.scanning.scan_corpus`) as ``settings`` say, reporting progress.

    Progress goes through :meth:`~w2v.training.progress.Progress.status`
    (redrawn in place on a terminal).  When the scan is over, a status says
    that ``next_step`` follows: always on a terminal, elsewhere when the scan
    was long enough to report (the next step then takes a while too).

    Parameters
    ----------
    corpus : str or list of str
        Files, directories or ``"-"``.
    settings : w2v.settings.Settings
        ``tokenizer``, ``lowercase``, ``memory_budget``, ``threads`` and
        ``min_count`` apply (past the budget, the scan lists only the words
        occurring ``min_count`` times: :func:`w2v.text.scanning.scan_corpus`).
    quiet : bool
        No progress on stderr.
    stream : file object, optional
        Where progress goes (default: stderr).
    next_step : str
        What follows the scan, for its last status.
    allow_binary : bool
        Read inputs that do not look like text (see :func:`w2v.text.scanning.scan_corpus`).
    vocabulary : sequence of str, optional
        Words the scan lists whatever their counts (the model's, to encode
        the corpus with it or to update it).

    Returns
    -------
    scanned : w2v.text.scanning.ScannedCorpus
    reporter : w2v.training.progress.Progress
        For the caller's summary line.
    t0 : float
        ``time.perf_counter()`` when the scan began.
    """
    s = settings
    t0 = time.perf_counter()
    reporter = Progress(1, s, stream=stream, quiet=quiet)
    last = [t0]
    shown = [False]

    def scan_progress(chars, tokens):
        now = time.perf_counter()
        if not quiet and now - last[0] >= reporter.interval:
            last[0] = now
            shown[0] = True
            rate = tokens / max(now - t0, 1e-9)
            reporter.status(f"reading corpus: {tokens:,} tokens ({rate / 1e6:.2f}M tokens/s)")

    scanned = scan_corpus(corpus, tokenizer=s.tokenizer, lowercase=s.lowercase,
                          memory_budget=s.memory_budget, progress=scan_progress, threads=s.threads,
                          allow_binary=allow_binary, min_count=s.min_count, vocabulary=vocabulary)
    if scanned.spill:
        reporter.message(f"counted {scanned.n_distinct:,} distinct words past the memory budget: "
                         f"{scanned.spill['generations']} spills, {scanned.spill['spilled_bytes'] / 1e6:,.0f} MB "
                         f"of temporary files; kept the {len(scanned.words):,} that occur at least "
                         f"{scanned.count_floor} times" + (" or are in the vocabulary" if vocabulary else ""))
    if not quiet and (reporter.tty or shown[0]):
        reporter.status(f"read {scanned.n_tokens:,} tokens ({time.perf_counter() - t0:.1f}s); {next_step}")
    return scanned, reporter, t0


def _scan_sentences(sentences, settings, quiet, stream, next_step):
    """:func:`scan_with_progress` for an iterable of sentences (:func:`w2v.text.iterables.scan_sentences`)."""
    t0 = time.perf_counter()
    reporter = Progress(1, settings, stream=stream, quiet=quiet)
    last = [t0]

    def progress(tokens):
        now = time.perf_counter()
        if not quiet and now - last[0] >= reporter.interval:
            last[0] = now
            reporter.status(f"reading sentences: {tokens:,} tokens ({tokens / (now - t0) / 1e6:.2f}M tokens/s)")

    scanned = scan_sentences(sentences, settings.memory_budget, progress=progress)
    if not quiet:
        reporter.status(f"read {scanned.n_tokens:,} tokens in {scanned.n_sentences:,} sentences "
                        f"({time.perf_counter() - t0:.1f}s); {next_step}")
    return scanned, reporter, t0


def _scan(source, settings, quiet, stream, next_step, allow_binary, vocab=None):
    """Read ``source`` once, joining its phrases; record what was read in it.  Return ``(scanned, reporter, t0)``.

    The words of ``vocab`` (a model's vocabulary) are listed whatever their counts, also past the memory budget."""
    s = settings
    if source.reads_files:
        stats = _file_stats(source.paths)
        scanned, reporter, t0 = scan_with_progress(source.paths, s, quiet, stream, next_step, allow_binary,
                                                   None if vocab is None else vocab.words)
    else:
        scanned, reporter, t0 = _scan_sentences(source.iterable, s, quiet, stream, next_step)
    if source.phrases is not None:   # files and sentences alike: joined on the id stream
        scanned, _ = phrase_scanned(scanned, source.phrases, s.threads, None if quiet else reporter.message)
    if source.reads_files:
        source.n_sentences = line_sentences(scanned.stream, s.max_sentence_length)
        source.files = scanned.absolute_files
        source.file_stats = stats
    else:
        source.n_sentences = scanned.n_sentences
        source.files = None
    source.n_tokens = scanned.n_tokens
    return scanned, reporter, t0


def _vocab_report(counts, remap, sample):
    """gensim's report of ``prepare_vocab``: words dropped and kept, and what subsampling keeps of them."""
    kept = remap >= 0
    retained = counts[kept]
    total = int(retained.sum())
    threshold = total if not sample else (sample * total if sample < 1.0 else sample * (3 + np.sqrt(5)) / 2)
    p = np.minimum(1.0, (np.sqrt(retained / threshold) + 1) * threshold / np.maximum(retained, 1))
    return {"drop_unique": int((~kept).sum()), "retain_total": total, "downsample_unique": int((p < 1).sum()),
            "downsample_total": int((p * retained).sum()), "num_retained_words": int(kept.sum())}


def _pick_vocabulary(words, counts, settings, max_final_vocab, trim_rule, vocab):
    """The vocabulary of ``words`` with ``counts``: new, or ``vocab`` grown (an online update).

    Returns ``(new vocabulary, remap of each word to its id or -2, effective min_count)``.
    """
    s = settings
    eff = final_vocab_min_count(counts, s.min_count, max_final_vocab)
    keep = kept_words(words, counts, eff, trim_rule)
    if vocab is None:
        return (*build_vocab(words, counts, eff, s.max_vocab_size, keep), eff)
    return (*merge_vocab(vocab, words, counts, eff, s.max_vocab_size, keep), eff)


class CorpusReader:
    """Reads corpora for one model and returns what it read (see the module docstring).

    Every step takes the settings to read with, and the model's vocabulary
    where the step grows it or encodes with it; none changes that vocabulary.
    """

    def __init__(self):
        self._pending = None          # a scanned corpus waiting for prepare (w2v.text.scanning.ScannedCorpus)
        self._pending_source = None   # its CorpusSource
        self._raw = None              # (words, counts) kept with keep_raw_vocab

    @property
    def raw_vocab(self):
        """The counts of the corpus scanned last (or of the counts given last) as a dict; after
        :meth:`prepare` only with ``keep_raw_vocab``, else empty."""
        raw = self._raw if self._pending is None else (self._pending.words, self._pending.counts)
        if raw is None:
            return {}
        return dict(zip(raw[0], raw[1].tolist()))

    def drop_scan(self):
        """Forget the scanned corpus waiting for :meth:`prepare` (and close its id stream)."""
        if self._pending is not None:
            self._pending.stream.close()
        self._pending = self._pending_source = None

    close = drop_scan

    def scan(self, source, settings, quiet=True, progress_stream=None, allow_binary=False, vocab=None):
        """Read ``source`` once and keep its counts and ids for :meth:`prepare` (any earlier scan is dropped).

        Returns
        -------
        CorpusRead
            The source and its totals; nothing is encoded yet.
        """
        self._keep_scan(source, settings, quiet, progress_stream, allow_binary, BUILDING, vocab)
        return CorpusRead(source, source.n_sentences, source.n_tokens, source.files)

    def _keep_scan(self, source, settings, quiet, stream, allow_binary, next_step, vocab=None):
        self.drop_scan()
        scanned, reporter, t0 = _scan(source, settings, quiet, stream, next_step, allow_binary, vocab)
        self._pending, self._pending_source = scanned, source
        self._raw = None
        return reporter, t0

    def prepare(self, settings, vocab=None, max_final_vocab=None, keep_raw_vocab=False, trim_rule=None,
                dry_run=False):
        """Pick the vocabulary from the scanned counts and encode the scanned corpus with it.

        Parameters
        ----------
        settings : w2v.settings.Settings
            ``min_count``, ``max_vocab_size`` and ``sample`` (for the report) apply.
        vocab : w2v.text.vocab.Vocab, optional
            The model's vocabulary, to grow (an online update).
        max_final_vocab, keep_raw_vocab, trim_rule, dry_run
            As gensim's ``prepare_vocab``: ``dry_run`` only reports, and keeps the scan waiting.

        Returns
        -------
        CorpusRead
            The vocabulary (``grown_from`` with ``vocab``), the encoded corpus, gensim's report.

        Raises
        ------
        VocabularyError
            Nothing scanned, ``vocab`` edited by hand, or no word left after ``min_count``.
        """
        scanned, source = self._pending, self._pending_source
        if scanned is None:
            raise VocabularyError("nothing scanned: call scan_vocab(corpus) first")
        if vocab is not None:
            vocab.check()
        new, remap, eff = _pick_vocabulary(scanned.words, scanned.counts, settings, max_final_vocab, trim_rule, vocab)
        report = _vocab_report(scanned.counts, remap, settings.sample)
        read = CorpusRead(source, source.n_sentences, source.n_tokens, source.files, report=report)
        if dry_run:
            return read
        read.encoded = encode_corpus(scanned, remap, len(new))
        read.vocab, read.effective_min_count = new, eff
        read.grown_from = None if vocab is None else len(vocab)
        self._pending = self._pending_source = None
        self._raw = (scanned.words, scanned.counts) if keep_raw_vocab else None
        return read

    def read_vocabulary(self, source, settings, vocab=None, max_final_vocab=None, keep_raw_vocab=False,
                        trim_rule=None, dry_run=False, quiet=True, progress_stream=None, allow_binary=False):
        """``build_vocab``'s read: :meth:`scan`, then :meth:`prepare`, loading the training kernels beside.

        The CPU training kernels load (or, the first time, compile) in a
        thread while the corpus is read; the time the read waits for them is
        ``kernel_load_seconds``, left out of ``seconds``.  Without ``quiet``,
        a line reports the vocabulary.  A :class:`VocabularyError` of
        :meth:`prepare` drops the scan.

        Returns
        -------
        CorpusRead
            As :meth:`prepare`'s, with the timings.
        """
        update = vocab is not None
        shown = Progress(1, settings, stream=progress_stream, quiet=quiet)
        step = ("updating" if update else "building") + " the vocabulary and encoding the corpus"
        with KernelWatch(on_compile=lambda: shown.message(COMPILING)) as kernels:
            # load the CPU training kernel while the corpus is read (about a second from Numba's cache)
            loader = start_kernel_load(settings) if settings.device != "cuda" and not update else None
            try:
                reporter, t0 = self._keep_scan(source, settings, quiet, progress_stream, allow_binary, step, vocab)
                try:
                    read = self.prepare(settings, vocab, max_final_vocab, keep_raw_vocab, trim_rule, dry_run)
                except VocabularyError:
                    self.drop_scan()
                    raise
            finally:
                if loader is not None:
                    kernels.wait(loader)
        read.kernel_load_seconds = kernels.waited
        read.seconds = max(0.0, time.perf_counter() - t0 - kernels.waited)
        if kernels.compiled:
            reporter.message(f"compiled the training kernels in {kernels.compile_seconds:.1f}s "
                             f"(later runs load them from the cache)")
        if not quiet and not dry_run:
            reporter.message(_vocabulary_line(read))
        return read

    def from_counts(self, word_freq, settings, vocab=None, max_final_vocab=None, trim_rule=None,
                    keep_raw_vocab=False, corpus_count=None):
        """A vocabulary from a dict of word counts (words in the dict's order among equal counts), or
        ``vocab`` grown by them; no corpus is read.

        Returns
        -------
        CorpusRead
            The vocabulary, no corpus; ``n_sentences`` is ``corpus_count`` (gensim's), or 0.

        Raises
        ------
        ParameterError
            A word that is not a ``str``.
        VocabularyError
            No word left after ``min_count``.
        """
        words = list(word_freq)
        counts = np.fromiter((word_freq[w] for w in words), np.int64, len(words))
        if any(not isinstance(w, str) for w in words):
            raise ParameterError("build_vocab_from_freq: words must be str")
        new, _, eff = _pick_vocabulary(words, counts, settings, max_final_vocab, trim_rule, vocab)
        self._raw = (words, counts) if keep_raw_vocab else None
        return CorpusRead(n_sentences=corpus_count or 0, vocab=new, grown_from=None if vocab is None else len(vocab),
                          effective_min_count=eff)

    def encode(self, source, settings, vocab, quiet=True, progress_stream=None, allow_binary=False):
        """Read ``source`` and encode it with ``vocab`` as it is (unknown words dropped).

        Returns
        -------
        CorpusRead
            The encoded corpus, its source and totals, ``seconds`` the read took.

        Raises
        ------
        VocabularyError
            ``vocab`` edited by hand, or no word of the corpus is in it.
        """
        vocab.check()
        scanned, reporter, t0 = _scan(source, settings, quiet, progress_stream,
                                      "encoding it with the model's vocabulary", allow_binary, vocab)
        remap = vocab_ids(vocab, scanned.words)
        if not np.any(remap >= 0):
            scanned.stream.close()
            raise VocabularyError("no word of the corpus is in the model's vocabulary "
                                  "(use build_vocab(corpus, update=True) to add new words)")
        encoded = encode_corpus(scanned, remap, len(vocab))
        if not quiet:
            reporter.message(f"corpus: {encoded.n_words:,} of {scanned.n_tokens:,} tokens in the model's "
                             f"vocabulary of {len(vocab):,} words")
        return CorpusRead(source, source.n_sentences, source.n_tokens, source.files, encoded,
                          seconds=time.perf_counter() - t0)


def _vocabulary_line(read):
    """The line that reports a vocabulary read (built or updated)."""
    enc, n, v = read.encoded, read.n_tokens, len(read.vocab)
    if read.grown_from is not None:
        return (f"vocabulary update: {v - read.grown_from:,} new words, {v:,} in all; {enc.n_words:,} of {n:,} "
                "tokens covered")
    return (f"vocabulary: {v:,} words (min_count={read.effective_min_count}) covering {enc.n_words:,} of {n:,} "
            f"tokens; encoded corpus {'on disk' if enc.on_disk else 'in memory'} ({read.seconds:.1f}s)")
