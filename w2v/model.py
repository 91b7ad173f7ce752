"""The ``Word2Vec`` model: orchestrates corpus, vocabulary, tables and training.

:class:`Word2Vec` is the only writer of its own state.  The runners, the
run lifecycle and the persistence read its public attributes and change it
through these methods only:

* ``set_vocabulary(vocab)``: a new vocabulary, its tables and fresh weights;
  the run state and random states are cleared.
* ``set_corpus(encoded, n_tokens, files, vocab_seconds=None)``: the corpus to
  train on (the previous encoded corpus is closed; ``encoded`` may be
  ``None`` where the corpus lives elsewhere, e.g. on Dask workers).
* ``rebuild_tables(huffman=None)``: the sampling tables from the vocabulary's
  counts and the settings (keeping ``huffman``, a Huffman tree, if given).
* ``update_settings(**changes)``: settings of a model with weights (the
  tables are rebuilt where needed; structural changes are refused).
* ``check_settings()``: validate the settings against the weights, changing nothing.
* ``start_run(run_state)``: record the run about to train (:func:`w2v.run.begin_run`).
* ``set_rng_states(states)``: the workers' random states of the run.
* ``finish_epochs(epochs_done, result=None)``: epochs of the run are done;
  with ``result`` it becomes ``last_train`` and the cached vectors are dropped.
* ``record_run(result)``: the run's result as ``last_train``, its seconds as
  ``timings["train_seconds"]``; the cached vectors are dropped.
* ``invalidate_vectors()``: drop the cached :class:`~w2v.vectors.KeyedVectors`
  (the weights changed).
* ``restore(vocab, syn0, syn1neg, syn1, huffman=None, rng_states=None,
  run_state=None)``: install a loaded model's state (:func:`w2v.persist.load_model`).

Read-only properties give the rest of the state: ``encoded_corpus``,
``corpus_files`` and ``rng_states``.
"""
import dataclasses
import threading
import time

import numpy as np

from .encoded import encode_corpus
from .errors import CorpusError, ParameterError, VocabularyError
from .inputs import check_text_files
from .progress import COMPILING, KernelWatch, Progress, scan_with_progress
from .sampling import build_tables
from .settings import BUILT_FROM, TABLE_SETTINGS, Settings, changed_settings
from .train import run_epochs, start_kernel_load
from .vocab import build_vocab, merge_vocab, vocab_ids
from .weights import fresh_weights, grow_weights


class Word2Vec:
    """Skip-gram / CBOW word2vec with negative sampling and/or hierarchical softmax.

    Parameters
    ----------
    **settings
        Any field of :class:`w2v.settings.Settings` (``model``, ``dim``,
        ``window``, ``negative``, ``hs``, ``sample``, ``min_count``,
        ``max_vocab_size``, ``epochs``, ``alpha``, ``min_alpha``, ``threads``,
        ``seed``, ``ns_exponent``, ``exact``, ``cbow_mean``,
        ``max_sentence_length``, ``tokenizer``, ``lowercase``,
        ``memory_budget``, ``device``).

    Raises
    ------
    ParameterError
        An invalid value (see :meth:`w2v.settings.Settings.validate`); an
        unknown name is a ``TypeError``.

    Examples
    --------
    >>> m = Word2Vec(dim=50, epochs=1).train("corpus.txt")   # doctest: +SKIP
    >>> m.wv["king"]                                           # doctest: +SKIP
    >>> m.save_word2vec("vectors.bin")                          # doctest: +SKIP
    """

    def __init__(self, **settings):
        self.settings = Settings(**settings)
        self.vocab = None
        self.syn0 = None
        self.syn1neg = None
        self.syn1 = None
        self.tables = None
        self.huffman = None
        self.timings = {}
        self.last_train = None      # the latest run's w2v.run.RunResult
        self.run_state = None       # the latest run: epochs, epochs_done, corpus (see w2v.run.begin_run)
        self.corpus_tokens = None   # raw tokens of the corpus to train on
        self._encoded = None        # its encoded ids (w2v.encoded.EncodedCorpus)
        self._corpus_files = None   # its inputs, as absolute paths
        self._rng_states = None     # the workers' random states, continued by the next run
        self._built_from = None     # the settings the tables were built from (see BUILT_FROM)
        self._wv = None

    @property
    def encoded_corpus(self):
        """The corpus to train on as vocabulary ids (:class:`w2v.encoded.EncodedCorpus`), or ``None``."""
        return self._encoded

    @property
    def corpus_files(self):
        """The inputs of the corpus to train on (absolute paths, ``"-"`` for stdin), or ``None``."""
        return self._corpus_files

    @property
    def rng_states(self):
        """The workers' random states (uint64, shape (threads, 1)) of the latest run, or ``None``."""
        return self._rng_states

    # ------------------------------------------------------------------ vocabulary
    def build_vocab(self, corpus, quiet=True, progress_stream=None, update=False, allow_binary=False, phrases=None):
        """Read the corpus once: count, build the vocabulary and tables, encode the ids.

        Parameters
        ----------
        corpus : str or list of str
            Files, directories or ``"-"`` (stdin).
        quiet : bool
            No progress on stderr.
        update : bool
            Online update (as gensim's): keep the vocabulary, ids and weights,
            add the corpus' new words (``min_count`` applies to their counts
            in ``corpus``) with fresh vectors, add the corpus' counts, rebuild
            the sampling tables and Huffman tree; see
            :func:`w2v.vocab.merge_vocab`.  Without it the model is reset.
        allow_binary : bool
            Read inputs that do not look like text (see :func:`w2v.corpus.scan_corpus`).
        phrases : optional
            Phrases joined into the ids as the corpus is encoded (:func:`w2v.phrase_corpus.resolve_phrases`).

        Returns
        -------
        Word2Vec
            ``self``.

        Raises
        ------
        CorpusError
            A corpus path is missing or unreadable, is not text (unless
            ``allow_binary``), or holds no token.
        VocabularyError
            No word is left after ``min_count``.
        """
        self.settings.validate()
        if update:
            self._apply_changed_settings()   # a hand-changed dim/model/hs is refused, as in train()
            return self._update_vocab(corpus, quiet, progress_stream, allow_binary, phrases)
        s = self.settings
        shown = Progress(1, s, stream=progress_stream, quiet=quiet)
        # the time spent on the kernels (a first run compiles them) is kernel_load_seconds, not vocab_seconds
        with KernelWatch(on_compile=lambda: shown.message(COMPILING)) as kernels:
            # load the CPU training kernel while the corpus is read (about a second from Numba's cache)
            loader = start_kernel_load(s) if s.device != "cuda" else None
            try:
                scanned, reporter, t0 = scan_with_progress(corpus, s, quiet, progress_stream,
                                                           allow_binary=allow_binary, phrases=phrases)
                try:
                    vocab, remap = build_vocab(scanned.words, scanned.counts, s.min_count, s.max_vocab_size)
                except VocabularyError:
                    scanned.stream.close()
                    raise
                encoded = encode_corpus(scanned, remap, len(vocab))
            finally:
                if loader is not None:
                    kernels.wait(loader)
            self.set_corpus(encoded, scanned.n_tokens, scanned.absolute_files)
            self.set_vocabulary(vocab)
        self.timings["kernel_load_seconds"] = kernels.waited
        self.timings["vocab_seconds"] = max(0.0, time.perf_counter() - t0 - kernels.waited)
        if kernels.compiled:
            reporter.message(f"compiled the training kernels in {kernels.compile_seconds:.1f}s "
                             f"(later runs load them from the cache)")
        if not quiet:
            reporter.message(
                f"vocabulary: {len(vocab):,} words (min_count={s.min_count}) covering "
                f"{encoded.n_words:,} of {scanned.n_tokens:,} tokens; "
                f"encoded corpus {'on disk' if encoded.on_disk else 'in memory'} "
                f"({self.timings['vocab_seconds']:.1f}s)")
        return self

    def _update_vocab(self, corpus, quiet, progress_stream, allow_binary, phrases=None):
        """Online vocabulary update (``build_vocab(corpus, update=True)``), as gensim's.

        * the vocabulary grows as :func:`w2v.vocab.merge_vocab` says: words
          keep their ids and rows, counts grow, new words are appended;
        * new rows are fresh inputs and zero outputs
          (:func:`w2v.weights.grow_weights`);
        * the subsampling and noise tables are rebuilt from the new counts;
        * with ``hs`` the Huffman tree is rebuilt from the new counts and
          ``syn1`` keeps its rows (extended with zero rows to ``V - 1``), as
          gensim does: an inner node index then names a node of the new tree,
          which need not be the node that row was trained for.  Rows of the
          frequent words' upper nodes mostly survive; the rest re-learn quickly.
        * ``corpus`` is encoded with the merged vocabulary for the next
          :meth:`train`, which starts a new run.
        """
        if self.vocab is None:
            raise VocabularyError("cannot update a vocabulary that does not exist: call build_vocab(corpus) first")
        self.vocab.check()
        s = self.settings
        step = "updating the vocabulary and encoding the corpus"
        scanned, reporter, t0 = scan_with_progress(corpus, s, quiet, progress_stream, step, allow_binary, phrases)
        old = self.vocab
        try:
            vocab, remap = merge_vocab(old, scanned.words, scanned.counts, s.min_count, s.max_vocab_size)
        except VocabularyError:
            scanned.stream.close()
            raise
        encoded = encode_corpus(scanned, remap, len(vocab))
        self.set_corpus(encoded, scanned.n_tokens, scanned.absolute_files)
        self.vocab = vocab
        self.syn0, self.syn1neg, self.syn1 = grow_weights(self.syn0, self.syn1neg, self.syn1, s, len(old),
                                                          len(vocab))
        self.rebuild_tables()
        self._wv = None
        self.run_state = None
        self.timings["vocab_seconds"] = time.perf_counter() - t0
        if not quiet:
            reporter.message(f"vocabulary update: {len(vocab) - len(old):,} new words, {len(vocab):,} in all; "
                             f"{encoded.n_words:,} of {scanned.n_tokens:,} tokens covered")
        return self

    def read_corpus(self, corpus, quiet=True, progress_stream=None, allow_binary=False, phrases=None):
        """Read ``corpus`` and encode it with the model's vocabulary as it is, for the next :meth:`train`.

        Unknown words are dropped; the vocabulary, its counts, the tables and
        the weights do not change.  This is what ``train(corpus)`` does on a
        model that already has a vocabulary.

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
        if self.vocab is None:
            raise VocabularyError("model has no vocabulary yet: call build_vocab(corpus)")
        self.vocab.check()
        scanned, reporter, t0 = scan_with_progress(corpus, self.settings, quiet, progress_stream,
                                                   "encoding it with the model's vocabulary", allow_binary, phrases)
        remap = vocab_ids(self.vocab, scanned.words)
        if not np.any(remap >= 0):
            scanned.stream.close()
            raise VocabularyError("no word of the corpus is in the model's vocabulary "
                                  "(use build_vocab(corpus, update=True) to add new words)")
        encoded = encode_corpus(scanned, remap, len(self.vocab))
        self.set_corpus(encoded, scanned.n_tokens, scanned.absolute_files)
        self.timings["vocab_seconds"] = time.perf_counter() - t0
        if not quiet:
            reporter.message(f"corpus: {encoded.n_words:,} of {scanned.n_tokens:,} tokens in the model's "
                             f"vocabulary of {len(self.vocab):,} words")
        return self

    def set_vocabulary(self, vocab):
        """A new vocabulary: its sampling tables, fresh weights; no run state, no random states.

        Parameters
        ----------
        vocab : w2v.vocab.Vocab
        """
        self.vocab = vocab
        self.rebuild_tables()
        self._init_weights()
        self.run_state = None
        self._rng_states = None

    def set_corpus(self, encoded, n_tokens, files, vocab_seconds=None):
        """The corpus the next :meth:`train` trains on; the previous encoded corpus is closed.

        Parameters
        ----------
        encoded : w2v.encoded.EncodedCorpus or None
            ``None`` where the corpus is not encoded here (Dask workers hold it).
        n_tokens : int
            Raw tokens of the corpus (``corpus_tokens``).
        files : list of str or None
            Its inputs (absolute paths), recorded in the run state.
        vocab_seconds : float, optional
            The time reading the corpus took, as ``timings["vocab_seconds"]``
            (``timings["kernel_load_seconds"]``, the time :meth:`build_vocab`
            waited for the kernels beside it, is reset to 0).
        """
        if self._encoded is not None and self._encoded is not encoded:
            self._encoded.close()
        self._encoded = encoded
        self.corpus_tokens = n_tokens
        self._corpus_files = files
        self.timings["kernel_load_seconds"] = 0.0
        if vocab_seconds is not None:
            self.timings["vocab_seconds"] = vocab_seconds

    def rebuild_tables(self, huffman=None):
        """Rebuild the sampling tables from the vocabulary's counts and the settings.

        Parameters
        ----------
        huffman : w2v.sampling.HuffmanTree, optional
            With ``hs``: keep this tree (a loaded model's, or the current one
            when only ``sample``, ``negative`` or ``ns_exponent`` changed)
            instead of building one from the counts.
        """
        self.tables, self.huffman = build_tables(self.vocab.counts, self.settings, huffman)
        self._built_from = {k: getattr(self.settings, k) for k in BUILT_FROM}

    def _init_weights(self):
        # input vectors uniform in [-1/dim, 1/dim) as gensim 4 (see w2v.weights.initial_input_rows), outputs zero
        self.syn0, self.syn1neg, self.syn1 = fresh_weights(self.settings, len(self.vocab))
        self._wv = None

    # ------------------------------------------------------------------ settings
    def update_settings(self, **changes):
        """Change settings of a model that has weights (e.g. more epochs or threads to resume with).

        ``model``, ``dim`` and ``hs`` cannot change, nor ``negative`` from 0 to
        more (there are no output vectors for it); the sampling tables are
        rebuilt when ``sample``, ``ns_exponent`` or ``negative`` change.

        Returns
        -------
        Word2Vec
            ``self``.

        Raises
        ------
        ParameterError
            An invalid value or a structural change.
        """
        old = self.settings
        new = changed_settings(old, self.syn0 is not None, **changes)
        self.settings = new
        if self.vocab is not None and any(getattr(new, k) != getattr(old, k) for k in TABLE_SETTINGS):
            self.rebuild_tables(self.huffman)
        self._wv = None
        return self

    def _changed_by_hand(self):
        """Settings the tables and weights were built from, changed since (``m.settings.sample = ...``)."""
        built = self._built_from
        if self.vocab is None or built is None:
            return {}
        return {k: getattr(self.settings, k) for k in BUILT_FROM if getattr(self.settings, k) != built[k]}

    def check_settings(self):
        """Raise :class:`ParameterError` on an invalid setting, or one changed by hand that the
        weights cannot take (``model``, ``dim``, ``hs``; ``negative`` from 0); nothing changes."""
        self.settings.validate()
        changed = self._changed_by_hand()
        if changed:
            built = dataclasses.replace(self.settings, **self._built_from)
            changed_settings(built, self.syn0 is not None, **changed)

    def _apply_changed_settings(self):
        """Apply settings changed by hand since the tables were built: rebuild the tables
        (``sample``, ``ns_exponent``, ``negative``) or refuse the change (``model``, ``dim``,
        ``hs``), as :meth:`update_settings` does for --resume."""
        changed = self._changed_by_hand()
        if changed:
            wanted = self.settings
            self.settings = dataclasses.replace(wanted, **self._built_from)
            try:
                self.update_settings(**changed)
            finally:
                self.settings = wanted

    # ------------------------------------------------------------------ runs
    def start_run(self, run_state):
        """Record the run about to train (a dict: ``epochs``, ``epochs_done``, ``corpus_length``,
        ``corpus_words``, ``corpus_files``, and ``sharded`` for Dask), see :func:`w2v.run.begin_run`."""
        self.run_state = run_state

    def set_rng_states(self, states):
        """The workers' random states of the run (advanced in place by the kernels, saved with the model)."""
        self._rng_states = states

    def finish_epochs(self, epochs_done, result=None):
        """Record that the run has done ``epochs_done`` epochs; with ``result`` (the run's result so
        far) it becomes ``last_train`` and the cached vectors are dropped."""
        self.run_state["epochs_done"] = epochs_done
        if result is not None:
            self._wv = None
            self.last_train = result

    def record_run(self, result):
        """Store a finished run's result: ``last_train``, ``timings["train_seconds"]``; drop the cached vectors.

        Parameters
        ----------
        result : w2v.run.RunResult or None
        """
        self.timings["train_seconds"] = 0.0 if result is None else result.seconds
        self.last_train = result
        self._wv = None

    def invalidate_vectors(self):
        """Drop the cached :attr:`wv` (the weights changed); a copy kept elsewhere forgets its norms."""
        self._wv = None

    def restore(self, vocab, syn0, syn1neg, syn1, huffman=None, rng_states=None, run_state=None):
        """Install a saved model's state (what :func:`w2v.persist.load_model` read); return ``self``.

        The sampling tables are rebuilt from the settings and the counts,
        with the saved Huffman tree ``huffman``; the corpus files are the
        ones ``run_state`` records.
        """
        self.vocab = vocab
        self.syn0, self.syn1neg, self.syn1 = syn0, syn1neg, syn1
        self.rebuild_tables(huffman)
        self._rng_states = rng_states
        self.run_state = run_state
        self._corpus_files = run_state.get("corpus_files") if run_state else None
        self._wv = None
        return self

    # ------------------------------------------------------------------ training
    def train(self, corpus=None, quiet=True, progress_stream=None, on_epoch_end=None, client=None,
              allow_binary=False, phrases=None, **dist_options):
        """Train for ``settings.epochs`` epochs.

        The learning rate decays from ``alpha`` to ``min_alpha`` over the
        epochs of this call (a trained or loaded model trained again starts a
        new schedule, as gensim does), except that a model holding an
        unfinished run (a checkpoint, see :meth:`save`) continues it: the
        remaining epochs run with the original schedule when the corpus is
        the same (same encoded length); on another corpus a new run starts
        and a :class:`w2v.ResumeWarning` says so.

        Parameters
        ----------
        corpus : str or list of str, optional
            On a model without a vocabulary, :meth:`build_vocab` runs on it
            first.  On a model that has one (trained, or loaded with
            :meth:`load`), the corpus is encoded with that vocabulary as it is:
            unknown words are skipped, weights are kept, nothing is reset.  To
            add new words, call ``build_vocab(corpus, update=True)`` and then
            ``train()`` without a corpus.  Without ``corpus``, train on the
            corpus of the last ``build_vocab``/``train``.
        quiet : bool
            No progress on stderr.
        on_epoch_end : callable, optional
            ``on_epoch_end(epoch)`` is called after every job of each epoch
            has finished (0-based epoch of the run; ``self.run_state
            ["epochs_done"]`` is ``epoch + 1``), e.g.
            ``on_epoch_end=lambda e: m.save("ckpt")`` for checkpoints.  The
            epochs then run one by one with the same learning-rate schedule.
        client : distributed.Client, optional
            Train on this Dask cluster instead (needs ``corpus``, readable by
            the workers); see :func:`w2v.distributed.train_distributed`, which
            receives ``dist_options`` (``round_words``, ``merge``...);
            ``on_epoch_end`` works the same way there.
        allow_binary, phrases
            As :meth:`build_vocab`'s (``phrases`` not on a Dask cluster).

        Returns
        -------
        Word2Vec
            ``self``.  ``self.last_train`` holds the per-epoch loss, counts and timings.

        Raises
        ------
        VocabularyError
            No ``corpus`` and none read before.
        CorpusError
            As :meth:`build_vocab`; or a corpus too small to train: no sentence holds two
            words of the vocabulary (found before any epoch), or no epoch trained an example.
        ParameterError
            An invalid setting, or ``dim``, ``model`` or ``hs`` changed on a
            model that has weights.
        DeviceError
            ``device="cuda"`` and no usable GPU (before the corpus is read).

        Warns
        -----
        ResumeWarning
            An unfinished run given another corpus: a new run starts.
        """
        self.settings.validate()   # settings may have been changed since the model was made
        self._apply_changed_settings()
        if on_epoch_end is not None and not callable(on_epoch_end):
            raise ParameterError(f"on_epoch_end must be callable, not {type(on_epoch_end).__name__}")
        if client is not None:
            return self._train_on_cluster(corpus, client, quiet, progress_stream, on_epoch_end, allow_binary,
                                          dist_options, phrases)
        if dist_options:
            raise TypeError(f"unexpected arguments without client: {', '.join(sorted(dist_options))}")
        if self.settings.device == "cuda":   # fail before reading the corpus
            from .cuda import require_cuda
            require_cuda()
        if corpus is not None:   # encoded with the model's vocabulary, or with a new one
            read = self.read_corpus if self.vocab is not None else self.build_vocab
            read(corpus, quiet=quiet, progress_stream=progress_stream, allow_binary=allow_binary, phrases=phrases)
        if self._encoded is None:
            raise VocabularyError("no corpus: call build_vocab(corpus) or train(corpus)")
        self.record_run(self._run_epochs(quiet, progress_stream, on_epoch_end))
        return self._check_trained()

    def _train_on_cluster(self, corpus, client, quiet, progress_stream, on_epoch_end, allow_binary, options,
                          phrases=None):
        if phrases is not None:
            raise ParameterError("phrases cannot be joined on a Dask cluster; join them with w2v phrases first")
        from .distributed import train_distributed
        if corpus is not None:   # the workers read it: its start is checked here
            check_text_files(corpus, allow_binary)
        train_distributed(self, corpus, client, quiet=quiet, progress_stream=progress_stream,
                          on_epoch_end=on_epoch_end, **options)
        return self._check_trained()

    def _check_trained(self):
        """``self``, unless the run just done trained no example at all (a CorpusError)."""
        result = self.last_train
        if result is not None and result.epoch_loss and result.examples == 0:
            n = len(result.epoch_loss)
            cause = ("subsampling dropped every word that had a context; on a tiny corpus set sample to 0"
                     if self.settings.sample > 0 else "no word had a context")
            raise CorpusError(f"nothing was trained: no training example in {n} epoch{'s' if n > 1 else ''} "
                              f"({cause})")
        return self

    def _run_epochs(self, quiet, progress_stream, on_epoch_end):
        s = self.settings
        if not self._encoded.has_context():
            n = len(self.vocab)
            raise CorpusError(f"nothing to train: no sentence of the corpus holds two words of the vocabulary "
                              f"({n:,} word{'s' if n != 1 else ''} of min_count {s.min_count} or more), so no "
                              "word has a context; give more text, or a lower min_count")
        progress = Progress(s.epochs * self._encoded.length, s, stream=progress_stream, quiet=quiet,
                            words_per_id=self.corpus_tokens / max(1, self._encoded.length))
        stop = threading.Event()
        run = run_epochs
        if s.device == "cuda":   # GPU training step, same schedule/tables/outputs (w2v.cuda)
            from .cuda.train import run_epochs_cuda as run
        try:
            return run(self, progress=progress, stop_event=stop, on_epoch_end=on_epoch_end)
        except KeyboardInterrupt:
            stop.set()
            raise

    # ------------------------------------------------------------------ results
    @property
    def _wv(self):
        return self.__dict__.get("_wv_cached")

    @_wv.setter
    def _wv(self, value):
        # every change of the weights drops the model's KeyedVectors (training, an update, a
        # load): a copy the user kept shares syn0, so its cached norms must go as well, or its
        # cosines go stale (above 1 after more training)
        old = self.__dict__.get("_wv_cached")
        if old is not None and old is not value:
            old._forget_norms()
        self.__dict__["_wv_cached"] = value

    @property
    def wv(self):
        """The trained input vectors as :class:`w2v.vectors.KeyedVectors` (shares memory)."""
        if self.vocab is None:
            raise VocabularyError("model has no vocabulary yet")
        if self._wv is None:
            from .vectors import KeyedVectors
            self._wv = KeyedVectors(self.vocab.words, self.syn0, counts=self.vocab.counts,
                                    settings=self.settings.to_dict())
        return self._wv

    def save_word2vec(self, path, binary=True):
        """Write the vectors in word2vec.c's binary (default) or text format, atomically."""
        from .vectors import save_word2vec_format
        save_word2vec_format(self.wv, path, binary=binary)

    def save(self, path):
        """Save the full model (to train it further) in the directory ``path``, atomically.

        Input and output weights, vocabulary with counts, Huffman tree,
        settings and the state of the latest run, as ``.npy`` arrays, a UTF-8
        ``vocab.tsv`` and JSON headers: no pickle.  The directory is also a
        native vectors directory, so ``w2v.load(path)`` reads its vectors.
        See :mod:`w2v.persist`.
        """
        from .persist import save_model
        save_model(self, path)

    @classmethod
    def load(cls, path):
        """Load a model saved by :meth:`save`; ``train(corpus)`` then continues training.

        Raises
        ------
        w2v.errors.FormatError
            A file is missing, truncated or corrupt (the message names it).
        """
        from .persist import load_model
        return load_model(cls, path)

    def close(self):
        """Release the encoded corpus (and its temporary file, if any)."""
        if self._encoded is not None:
            self._encoded.close()
            self._encoded = None
