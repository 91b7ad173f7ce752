"""The ``Word2Vec`` model: orchestrates corpus, vocabulary, tables and training."""
import dataclasses
import threading
import time

import numpy as np

from .corpus import encode_corpus
from .errors import ParameterError, VocabularyError
from .sampling import alias_table, keep_thresholds
from .settings import Settings
from .train import Progress, Tables, start_kernel_load
from .vocab import build_vocab

# the settings the sampling tables and the weights' shapes are built from
BUILT_FROM = ("model", "dim", "hs", "negative", "sample", "ns_exponent")


def initial_input_rows(rng, n, dim):
    """Fresh input vectors: ``n`` rows uniform in ``[-1/dim, 1/dim)`` (float32).

    This is gensim 4's range (``KeyedVectors.prep_vectors``); word2vec.c and
    gensim 3 draw from half of it, ``[-0.5/dim, 0.5/dim)``.  gensim 4's range
    is the one w2v's quality is compared with, and on the 17M-token wiki
    slice it scores higher: CBOW, 1 epoch, 1 thread, five seeds, analogy
    +0.55 points (all five seeds higher) against the narrower range.
    """
    rows = rng.random((n, dim), dtype=np.float32)
    rows -= np.float32(0.5)
    rows *= np.float32(2.0 / dim)
    return rows


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
        self.last_train = None
        self._encoded = None
        self._wv = None
        self._built_from = None     # the settings the tables were built from (see BUILT_FROM)
        self.run_state = None       # the latest run: epochs, epochs_done, corpus (see w2v.persist)
        self._rng_states = None

    # ------------------------------------------------------------------ vocabulary
    def build_vocab(self, corpus, quiet=True, progress_stream=None, update=False):
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
            :func:`w2v.persist.update_vocab`.  Without it the model is reset.

        Returns
        -------
        Word2Vec
            ``self``.

        Raises
        ------
        CorpusError
            A corpus path is missing or unreadable, or holds no token.
        VocabularyError
            No word is left after ``min_count``.
        """
        self.settings.validate()
        if update:
            from .persist import update_vocab
            self._apply_changed_settings()   # a hand-changed dim/model/hs is refused, as in train()
            return update_vocab(self, corpus, quiet=quiet, progress_stream=progress_stream)
        s = self.settings
        from .persist import scan_with_progress
        # load the CPU training kernel while the corpus is read (it takes about a second)
        loader = start_kernel_load(s) if s.device != "cuda" else None
        try:
            scanned, reporter, t0 = scan_with_progress(self, corpus, quiet, progress_stream)
            try:
                vocab, remap = build_vocab(scanned.words, scanned.counts, s.min_count, s.max_vocab_size)
            except VocabularyError:
                scanned.stream.close()
                raise
            encoded = encode_corpus(scanned, remap, len(vocab))
        finally:
            if loader is not None:
                loader.join()
        if self._encoded is not None:
            self._encoded.close()
        self._encoded = encoded
        self.corpus_tokens = scanned.n_tokens
        self.vocab = vocab
        self._make_tables()
        self._init_weights()
        from .persist import corpus_files
        self.run_state, self._rng_states, self._corpus_files = None, None, corpus_files(scanned)
        self.timings["vocab_seconds"] = time.perf_counter() - t0
        if not quiet:
            reporter.message(
                f"vocabulary: {len(vocab):,} words (min_count={s.min_count}) covering "
                f"{encoded.n_words:,} of {scanned.n_tokens:,} tokens; "
                f"encoded corpus {'on disk' if encoded.on_disk else 'in memory'} "
                f"({self.timings['vocab_seconds']:.1f}s)")
        return self

    def _make_tables(self):
        s = self.settings
        counts = self.vocab.counts
        keep = keep_thresholds(counts, s.sample)
        if s.negative > 0:
            nthr, nalias = alias_table(counts, s.ns_exponent)
        else:
            nthr, nalias = np.full(1, 1 << 32, np.int64), np.zeros(1, np.int32)
        if s.hs:
            from .persist import huffman_tree   # counts are unsorted after an online update
            self.huffman = huffman_tree(counts)
            codes, points, lengths = self.huffman.codes, self.huffman.points, self.huffman.lengths
        else:
            self.huffman = None
            codes, points, lengths = np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int32), np.zeros(1, np.int32)
        self.tables = Tables(keep, nthr, nalias, codes, points, lengths)
        self._built_from = {k: getattr(s, k) for k in BUILT_FROM}

    def _apply_changed_settings(self):
        """Apply settings changed by hand since the tables were built (``m.settings.sample = ...``):
        rebuild the tables (``sample``, ``ns_exponent``, ``negative``) or refuse the change
        (``model``, ``dim``, ``hs``), as :func:`w2v.persist.update_settings` does for --resume."""
        built = self._built_from
        if self.vocab is None or built is None:
            return
        changed = {k: getattr(self.settings, k) for k in BUILT_FROM if getattr(self.settings, k) != built[k]}
        if changed:
            from .persist import update_settings
            wanted = self.settings
            self.settings = dataclasses.replace(wanted, **built)
            try:
                update_settings(self, **changed)
            finally:
                self.settings = wanted

    def _init_weights(self):
        # input vectors uniform in [-1/dim, 1/dim) as gensim 4 (see initial_input_rows), outputs zero
        s = self.settings
        v = len(self.vocab)
        self.syn0 = initial_input_rows(np.random.default_rng(s.seed), v, s.dim)
        self.syn1neg = np.zeros((v if s.negative > 0 else 1, s.dim), np.float32)
        self.syn1 = np.zeros((max(1, v - 1) if s.hs else 1, s.dim), np.float32)
        self._wv = None

    # ------------------------------------------------------------------ training
    def train(self, corpus=None, quiet=True, progress_stream=None, on_epoch_end=None, client=None,
              **dist_options):
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

        Returns
        -------
        Word2Vec
            ``self``.  ``self.last_train`` holds the per-epoch loss, counts
            and timings.

        Raises
        ------
        VocabularyError
            No ``corpus`` and none read before.
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
            from .distributed import train_distributed
            return train_distributed(self, corpus, client, quiet=quiet, progress_stream=progress_stream,
                                     on_epoch_end=on_epoch_end, **dist_options)
        if dist_options:
            raise TypeError(f"unexpected arguments without client: {', '.join(sorted(dist_options))}")
        if self.settings.device == "cuda":   # fail before reading the corpus
            from .cuda import require_cuda
            require_cuda()
        if corpus is not None and self.vocab is not None:
            from .persist import encode_with_vocab
            encode_with_vocab(self, corpus, quiet=quiet, progress_stream=progress_stream)
        elif corpus is not None:
            self.build_vocab(corpus, quiet=quiet, progress_stream=progress_stream)
        if self._encoded is None:
            raise VocabularyError("no corpus: call build_vocab(corpus) or train(corpus)")
        s = self.settings
        progress = Progress(s.epochs * self._encoded.length, s, stream=progress_stream, quiet=quiet,
                            words_per_id=self.corpus_tokens / max(1, self._encoded.length))
        stop = threading.Event()
        try:
            if s.device == "cuda":   # GPU training step, same schedule/tables/outputs (w2v.cuda)
                from .cuda.train import run_epochs_cuda as run_epochs
            else:
                from .persist import run_epochs
            result = run_epochs(self, progress=progress, stop_event=stop, on_epoch_end=on_epoch_end)
        except KeyboardInterrupt:
            stop.set()
            raise
        self.timings["train_seconds"] = result["seconds"]
        self.last_train = result
        self._wv = None
        return self

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
