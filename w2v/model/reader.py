"""Reading a corpus into a :class:`~w2v.model.word2vec.Word2Vec`: the vocabulary pass, online updates, re-encoding.

:class:`CorpusReading` is a part of ``Word2Vec`` (a mixin): ``build_vocab``
with gensim's parameters, gensim's steps ``scan_vocab`` and
``prepare_vocab``, ``build_vocab_from_freq`` and ``read_corpus``.  A corpus
is read once, whether it is paths or an iterable of sentences
(:mod:`w2v.text.iterables`): the scan counts the words and records provisional
ids; ``prepare_vocab`` picks the vocabulary and encodes those ids for
training.

Which corpus ``train`` trains on (docs/gensim.md): the one read last, kept as
:class:`w2v.text.iterables.CorpusSource`.  ``train(X)`` with the very object ``X``
that was read (the same list or iterable, or the same unchanged files)
trains on its encoding without reading it again; any other ``X`` is read
once, in that call, and every epoch trains on its encoding.
"""
import os
import time

import numpy as np

from ..util.aliases import renamed
from ..text.encoded import encode_corpus
from ..errors import ParameterError, VocabularyError
from ..text.iterables import corpus_source, line_sentences, scan_sentences
from ..phrases.corpus import phrase_scanned
from ..training.progress import COMPILING, KernelWatch, Progress, scan_with_progress
from ..text.sentences import file_backed
from ..training.kernelcalls import start_kernel_load
from ..text.vocab import build_vocab, final_vocab_min_count, kept_words, merge_vocab, vocab_ids

__all__ = ["CorpusReading"]


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


class CorpusReading:
    """The corpus-reading methods of :class:`~w2v.model.word2vec.Word2Vec` (see the module docstring)."""

    # ------------------------------------------------------------------ sources
    def _corpus_source(self, corpus_iterable=None, corpus_file=None, passes=1, phrases=None):
        s = self.settings
        source = corpus_source(corpus_iterable, corpus_file, passes,
                               lambda c: file_backed(c, s.max_sentence_length, s.tokenizer, s.lowercase))
        if source is not None:
            source.phrases = phrases
        return source

    def _is_current(self, source):
        """Whether ``source`` is the corpus of the model's encoded corpus: the same iterable object, or
        the same files (regular files, unchanged in size and modification time since they were read)."""
        cur = self._source
        if cur is None or self._encoded is None or source.phrases is not None or cur.phrases is not None:
            return False
        if source.iterable is not None and cur.is_same(source.iterable):
            return True
        if source.paths is None or cur.paths is None:
            return False
        stats = _file_stats(source.paths)
        return stats is not None and stats == cur.file_stats

    def _read_for_training(self, source, quiet, progress_stream, allow_binary):
        """Make ``source`` the corpus to train on: kept when it is the one read last, encoded with the
        model's vocabulary, or (without one) read by :meth:`build_vocab`."""
        if self.vocab is not None:
            self.vocab.check()   # edited by hand: refused before anything is read or trained
        if self._is_current(source):
            return
        if self.vocab is not None:
            self._read_source(source, quiet, progress_stream, allow_binary)
        else:
            self.build_vocab(source.iterable if source.iterable is not None else source.paths, quiet=quiet,
                             progress_stream=progress_stream, allow_binary=allow_binary, phrases=source.phrases)

    def _scan(self, source, quiet, progress_stream, next_step, allow_binary):
        """Read ``source`` once; record its counts in it.  Return ``(scanned, reporter, t0)``."""
        s = self.settings
        if source.reads_files:
            stats = _file_stats(source.paths)
            scanned, reporter, t0 = scan_with_progress(source.paths, s, quiet, progress_stream, next_step,
                                                       allow_binary, self.vocab.words if self.vocab else None)
        else:
            scanned, reporter, t0 = self._scan_iterable(source.iterable, quiet, progress_stream, next_step)
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

    def _scan_iterable(self, sentences, quiet, progress_stream, next_step):
        s = self.settings
        t0 = time.perf_counter()
        reporter = Progress(1, s, stream=progress_stream, quiet=quiet)
        last = [t0]

        def progress(tokens):
            now = time.perf_counter()
            if not quiet and now - last[0] >= reporter.interval:
                last[0] = now
                reporter.status(f"reading sentences: {tokens:,} tokens ({tokens / (now - t0) / 1e6:.2f}M tokens/s)")

        scanned = scan_sentences(sentences, s.memory_budget, progress=progress)
        if not quiet:
            reporter.status(f"read {scanned.n_tokens:,} tokens in {scanned.n_sentences:,} sentences "
                            f"({time.perf_counter() - t0:.1f}s); {next_step}")
        return scanned, reporter, t0

    # ------------------------------------------------------------------ gensim's steps
    def scan_vocab(self, corpus_iterable=None, corpus_file=None, progress_per=10000, workers=None, trim_rule=None,
                   quiet=True, progress_stream=None, allow_binary=False):
        """Read the corpus once and count its words (gensim's first step of ``build_vocab``).

        The counts wait in the model for :meth:`prepare_vocab` (``raw_vocab``
        shows them), with the corpus' ids.  ``progress_per``, ``workers``
        and ``trim_rule`` are accepted as gensim's: w2v counts exactly, with
        its own threads, and applies ``trim_rule`` in :meth:`prepare_vocab`.

        Returns
        -------
        (int, int)
            ``(corpus_total_words, corpus_count)``: tokens and sentences read.
        """
        source = self._corpus_source(corpus_iterable, corpus_file, passes=1)
        if source is None:
            raise ParameterError("scan_vocab needs corpus_iterable or corpus_file")
        self._scan_into_model(source, quiet, progress_stream, allow_binary)
        return self.corpus_total_words, self.corpus_count

    def _scan_into_model(self, source, quiet, progress_stream, allow_binary,
                         next_step="building the vocabulary and encoding the corpus"):
        self.settings.validate()
        self._drop_scan()
        scanned, reporter, t0 = self._scan(source, quiet, progress_stream, next_step, allow_binary)
        self._scanned, self._scanned_source = scanned, source
        self._raw = None
        self.corpus_count, self.corpus_total_words = source.n_sentences, source.n_tokens
        return reporter, t0

    def _drop_scan(self):
        if self._scanned is not None:
            self._scanned.stream.close()
        self._scanned = self._scanned_source = None

    def prepare_vocab(self, update=False, keep_raw_vocab=False, trim_rule=None, min_count=None, sample=None,
                      dry_run=False):
        """Pick the vocabulary from the counts of :meth:`scan_vocab` and encode the corpus (gensim's second step).

        ``min_count`` and ``sample``, when given, become the model's
        settings; ``max_final_vocab`` and ``trim_rule`` apply as in gensim;
        ``dry_run`` only reports.  With ``update`` the vocabulary grows as in
        :meth:`build_vocab`.  The weights are made here too (gensim does it in
        ``prepare_weights``, which then changes nothing).

        Returns
        -------
        dict
            gensim's report: ``drop_unique``, ``retain_total``,
            ``downsample_unique``, ``downsample_total``, ``num_retained_words``.
        """
        scanned = self._scanned
        if scanned is None:
            raise VocabularyError("nothing scanned: call scan_vocab(corpus) first")
        changes = {k: v for k, v in (("min_count", min_count), ("sample", sample)) if v is not None}
        if changes and not dry_run:
            self.update_settings(**changes)
        s = self.settings
        eff = final_vocab_min_count(scanned.counts, changes.get("min_count", s.min_count), self.max_final_vocab)
        keep = kept_words(scanned.words, scanned.counts, eff, trim_rule)
        if update:
            if self.vocab is None:
                raise VocabularyError("cannot update a vocabulary that does not exist: call build_vocab(corpus) first")
            self.vocab.check()
            vocab, remap = merge_vocab(self.vocab, scanned.words, scanned.counts, eff, s.max_vocab_size, keep)
        else:
            vocab, remap = build_vocab(scanned.words, scanned.counts, eff, s.max_vocab_size, keep)
        report = self._vocab_report(scanned.counts, remap, changes.get("sample", s.sample))
        if dry_run:
            return report
        self.effective_min_count = eff
        self._install(scanned, vocab, remap, update)
        self._raw = (scanned.words, scanned.counts) if keep_raw_vocab else None
        return report

    @staticmethod
    def _vocab_report(counts, remap, sample):
        kept = remap >= 0
        retained = counts[kept]
        total = int(retained.sum())
        threshold = total if not sample else (sample * total if sample < 1.0 else sample * (3 + np.sqrt(5)) / 2)
        p = np.minimum(1.0, (np.sqrt(retained / threshold) + 1) * threshold / np.maximum(retained, 1))
        return {"drop_unique": int((~kept).sum()), "retain_total": total, "downsample_unique": int((p < 1).sum()),
                "downsample_total": int((p * retained).sum()), "num_retained_words": int(kept.sum())}

    def _install(self, scanned, vocab, remap, update):
        """Encode the scanned corpus with ``vocab`` and make it the model's (new or grown weights)."""
        source = self._scanned_source
        old = len(self.vocab) if update else 0
        encoded = encode_corpus(scanned, remap, len(vocab))
        self._scanned = self._scanned_source = None
        self.set_corpus(encoded, scanned.n_tokens, source.files)
        self._source = source
        if update:
            self.grow_vocabulary(vocab, old)
        else:
            self.set_vocabulary(vocab)

    # ------------------------------------------------------------------ build_vocab
    @renamed(corpus="corpus_iterable")
    def build_vocab(self, corpus_iterable=None, corpus_file=None, update=False, progress_per=10000,
                    keep_raw_vocab=False, trim_rule=None, quiet=True, progress_stream=None, allow_binary=False,
                    phrases=None, **kwargs):
        """Read the corpus once: count, build the vocabulary and tables, encode the ids.

        Parameters
        ----------
        corpus_iterable : str, list of str, or iterable of list of str
            Files, folders or ``"-"`` (stdin), or the sentences as lists of
            ``str`` tokens (any restartable iterable, or an iterator read once).
        corpus_file : str, optional
            A file, instead of ``corpus_iterable`` (gensim's name).
        update : bool
            Online update (as gensim's): keep the vocabulary, ids and weights,
            add the corpus' new words (``min_count`` applies to their counts
            in this corpus) with fresh vectors, add the counts, rebuild the
            sampling tables and Huffman tree (:func:`w2v.text.vocab.merge_vocab`).
            Without it the model is reset.
        progress_per, keep_raw_vocab, trim_rule, **kwargs
            As gensim's (``kwargs``: :meth:`prepare_vocab`'s ``min_count``,
            ``sample``, ``dry_run``); see docs/gensim.md.
        quiet : bool
            No progress on stderr.
        allow_binary : bool
            Read files that do not look like text (see :func:`w2v.text.scanning.scan_corpus`).
        phrases : "auto", dict, Phrases, FrozenPhrases or path, optional
            Phrases joined into the ids as it is read (:func:`w2v.phrases.corpus.resolve_phrases`).

        Returns
        -------
        Word2Vec
            ``self``.

        Raises
        ------
        CorpusError
            A path is missing or unreadable, is not text (unless
            ``allow_binary``), or the corpus holds no token; a sentence that
            is not a list of ``str``.
        VocabularyError
            No word is left after ``min_count``.
        """
        unknown = set(kwargs) - {"min_count", "sample", "dry_run"}
        if unknown:
            raise TypeError(f"build_vocab() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
        self.settings.validate()
        if update:
            self._apply_changed_settings()   # a hand-changed dim/model/hs is refused, as in train()
            if self.vocab is None:
                raise VocabularyError("cannot update a vocabulary that does not exist: call build_vocab(corpus) first")
        source = self._corpus_source(corpus_iterable, corpus_file, passes=1, phrases=phrases)
        if source is None:
            raise ParameterError("build_vocab needs a corpus: corpus_iterable (paths or sentences) or corpus_file")
        s = self.settings
        shown = Progress(1, s, stream=progress_stream, quiet=quiet)
        # the time spent on the kernels (a first run compiles them) is kernel_load_seconds, not vocab_seconds
        with KernelWatch(on_compile=lambda: shown.message(COMPILING)) as kernels:
            # load the CPU training kernel while the corpus is read (about a second from Numba's cache)
            loader = start_kernel_load(s) if s.device != "cuda" and not update else None
            try:
                step = "updating the vocabulary and encoding" if update else "building the vocabulary and encoding"
                reporter, t0 = self._scan_into_model(source, quiet, progress_stream, allow_binary,
                                                     step + " the corpus")
                before = len(self.vocab) if update else 0
                try:
                    self.prepare_vocab(update=update, keep_raw_vocab=keep_raw_vocab, trim_rule=trim_rule, **kwargs)
                except VocabularyError:
                    self._drop_scan()
                    raise
            finally:
                if loader is not None:
                    kernels.wait(loader)
        self.timings["kernel_load_seconds"] = kernels.waited
        self.timings["vocab_seconds"] = max(0.0, time.perf_counter() - t0 - kernels.waited)
        if kernels.compiled:
            reporter.message(f"compiled the training kernels in {kernels.compile_seconds:.1f}s "
                             f"(later runs load them from the cache)")
        if not quiet and not kwargs.get("dry_run"):
            self._report_vocab(reporter, update, before)
        return self

    def _report_vocab(self, reporter, update, before):
        enc, n = self._encoded, self.corpus_tokens
        if update:
            reporter.message(f"vocabulary update: {len(self.vocab) - before:,} new words, {len(self.vocab):,} in "
                             f"all; {enc.n_words:,} of {n:,} tokens covered")
            return
        reporter.message(f"vocabulary: {len(self.vocab):,} words (min_count={self.effective_min_count}) covering "
                         f"{enc.n_words:,} of {n:,} tokens; encoded corpus "
                         f"{'on disk' if enc.on_disk else 'in memory'} ({self.timings['vocab_seconds']:.1f}s)")

    def build_vocab_from_freq(self, word_freq, keep_raw_vocab=False, corpus_count=None, trim_rule=None,
                              update=False):
        """Build (or with ``update``, grow) the vocabulary from a dict of word counts, as gensim's.

        Words keep the dict's order among equal counts.  No corpus is read:
        give one to :meth:`train`.  ``corpus_count`` sets :attr:`corpus_count`.

        Returns
        -------
        Word2Vec
            ``self``.
        """
        words = list(word_freq)
        counts = np.fromiter((word_freq[w] for w in words), np.int64, len(words))
        if any(not isinstance(w, str) for w in words):
            raise ParameterError("build_vocab_from_freq: words must be str")
        self.settings.validate()
        s = self.settings
        eff = final_vocab_min_count(counts, s.min_count, self.max_final_vocab)
        keep = kept_words(words, counts, eff, trim_rule)
        if update:
            if self.vocab is None:
                raise VocabularyError("cannot update a vocabulary that does not exist: call build_vocab first")
            old = len(self.vocab)
            vocab, _ = merge_vocab(self.vocab, words, counts, eff, s.max_vocab_size, keep)
            self.grow_vocabulary(vocab, old)
        else:
            vocab, _ = build_vocab(words, counts, eff, s.max_vocab_size, keep)
            self.set_vocabulary(vocab)
            self.set_corpus(None, 0, None)
            self._source = None
        self.effective_min_count = eff
        self.corpus_count = corpus_count or 0
        self._raw = (words, counts) if keep_raw_vocab else None
        return self

    def read_corpus(self, corpus, quiet=True, progress_stream=None, allow_binary=False, phrases=None):
        """Read ``corpus`` and encode it with the model's vocabulary as it is, for the next :meth:`train`.

        Unknown words are dropped; the vocabulary, its counts, the tables and
        the weights do not change.  This is what ``train(corpus)`` does on a
        model that already has a vocabulary.

        Parameters
        ----------
        corpus : str, list of str, or iterable of list of str
            Paths, or sentences, as :meth:`build_vocab` takes them.
        quiet, progress_stream, allow_binary, phrases
            As :meth:`build_vocab`'s.

        Returns
        -------
        Word2Vec
            ``self``.

        Raises
        ------
        VocabularyError
            The model has no vocabulary, or no word of the corpus is in it.
        CorpusError
            As :meth:`build_vocab`.
        """
        return self._read_source(self._corpus_source(corpus, phrases=phrases), quiet, progress_stream, allow_binary)

    def _read_source(self, source, quiet, progress_stream, allow_binary):
        if self.vocab is None:
            raise VocabularyError("model has no vocabulary yet: call build_vocab(corpus)")
        self.vocab.check()
        scanned, reporter, t0 = self._scan(source, quiet, progress_stream, "encoding it with the model's vocabulary",
                                           allow_binary)
        remap = vocab_ids(self.vocab, scanned.words)
        if not np.any(remap >= 0):
            scanned.stream.close()
            raise VocabularyError("no word of the corpus is in the model's vocabulary "
                                  "(use build_vocab(corpus, update=True) to add new words)")
        encoded = encode_corpus(scanned, remap, len(self.vocab))
        self.set_corpus(encoded, scanned.n_tokens, source.files)
        self._source = source
        self.timings["vocab_seconds"] = time.perf_counter() - t0
        if not quiet:
            reporter.message(f"corpus: {encoded.n_words:,} of {scanned.n_tokens:,} tokens in the model's "
                             f"vocabulary of {len(self.vocab):,} words")
        return self

    @property
    def raw_vocab(self):
        """The counts of the corpus scanned last, as a dict (gensim's ``raw_vocab``): kept after
        :meth:`prepare_vocab` only with ``keep_raw_vocab``, else empty."""
        raw = self._raw if self._scanned is None else (self._scanned.words, self._scanned.counts)
        if raw is None:
            return {}
        return dict(zip(raw[0], raw[1].tolist()))
