"""The ``Word2Vec`` model: orchestrates corpus, vocabulary, tables and training.

:class:`Word2Vec` is the only writer of its own state.  The runners, the
run lifecycle and the persistence read its public attributes and change it
through these methods only:

* ``set_vocabulary(vocab)``: a new vocabulary, its tables and fresh weights;
  the run state and random states are cleared.
* ``grow_vocabulary(vocab, old)``: a vocabulary grown from the first ``old``
  words (an online update): their rows kept, new rows, tables rebuilt.
* ``set_corpus(encoded, n_tokens, files, vocab_seconds=None)``: the corpus to
  train on (the previous encoded corpus is closed; ``encoded`` may be
  ``None`` where the corpus lives elsewhere, e.g. on Dask workers).
* ``rebuild_tables(huffman=None)``: the sampling tables from the vocabulary's
  counts and the settings (keeping ``huffman``, a Huffman tree, if given).
* ``update_settings(**changes)``: settings of a model with weights (the
  tables are rebuilt where needed; structural changes are refused).
* ``check_settings()``: validate the settings against the weights, changing nothing.
* ``start_run(run_state)``: record the run about to train (:func:`w2v.training.lifecycle.begin_run`).
* ``set_rng_states(states)``: the workers' random states of the run.
* ``finish_epochs(epochs_done, result=None)``: epochs of the run are done;
  with ``result`` it becomes ``last_train`` and the cached vectors are dropped.
* ``record_position(epochs_done, position, **state)``: where a run stopped
  mid-epoch, for a checkpoint (:mod:`w2v.model.checkpoints`).
* ``snapshot()``: a copy of the model's weights and state that a checkpoint
  writes while the model trains on.
* ``record_run(result)``: the run's result as ``last_train``, its seconds as
  ``timings["train_seconds"]``; the cached vectors are dropped.
* ``invalidate_vectors()``: drop the cached :class:`~w2v.vectors.keyed.KeyedVectors`
  (the weights changed).
* ``restore(vocab, syn0, syn1neg, syn1, huffman=None, rng_states=None,
  run_state=None)``: install a loaded model's state (:func:`w2v.model.persist.load_model`).

Read-only properties give the rest of the state: ``encoded_corpus``,
``corpus_files`` and ``rng_states``.  Reading corpora (``build_vocab``,
``read_corpus``) is :mod:`w2v.model.reader`'s part of the class, gensim's other
names :mod:`w2v.model.gensim_api`'s, and the constructor's parameters
:mod:`w2v.model.gensim_params`'s.
"""
import copy as _copy
import dataclasses
import threading
import warnings

import numpy as np

from ..util.aliases import renamed
from ..training.callbacks import CallbackRun
from .checkpoints import open_checkpoints
from ..errors import CorpusError, ParameterError, VocabularyError
from .gensim_api import GensimMethods
from .gensim_params import constructor_arguments, constructor_signature
from ..text.inputs import check_text_files
from ..training.progress import Progress
from .reader import CorpusReading
from ..training.lifecycle import MID_EPOCH_KEYS
from ..training.sampling import build_tables
from ..settings import BUILT_FROM, TABLE_SETTINGS, Settings, changed_settings
from ..training.hogwild import run_epochs
from ..training.weights import fresh_weights, grow_weights


def copy_state(state):
    """A deep copy of a run state (plain dicts, lists and numbers)."""
    return None if state is None else _copy.deepcopy(state)


class Word2Vec(CorpusReading, GensimMethods):
    """Skip-gram / CBOW word2vec with negative sampling and/or hierarchical softmax.

    Parameters
    ----------
    sentences, corpus_file, vector_size, alpha, window, min_count, max_vocab_size, sample, seed, workers, \
min_alpha, sg, hs, negative, ns_exponent, cbow_mean, hashfxn, epochs, null_word, trim_rule, sorted_vocab, \
batch_words, compute_loss, callbacks, comment, max_final_vocab, shrink_windows
        gensim 4's parameters, in its order; with ``sentences`` or
        ``corpus_file`` the model trains at once.  Giving any name that only
        gensim has picks gensim's defaults (CBOW, 3 workers); see
        :mod:`w2v.model.gensim_params` and docs/gensim.md for the rule, and the
        values w2v refuses.
    model, dim, threads, exact, max_sentence_length, tokenizer, lowercase, memory_budget, device, deterministic, \
lanes, round_words
        w2v's own names, keyword only: the fields of
        :class:`w2v.settings.Settings` (``window``, ``negative``... are both).

    Raises
    ------
    ParameterError
        An invalid value (see :meth:`w2v.settings.Settings.validate`), or a
        gensim value w2v cannot honour; an unknown name is a ``TypeError``.

    Examples
    --------
    >>> m = Word2Vec(dim=50, epochs=1).train("corpus.txt")   # doctest: +SKIP
    >>> m = Word2Vec(sentences=LineSentence("corpus.txt"), vector_size=50)   # doctest: +SKIP
    >>> m.wv["king"]                                           # doctest: +SKIP
    """

    def __init__(self, *args, **kwargs):
        settings, options = constructor_arguments(args, kwargs)
        self.settings = Settings(**settings)
        self.vocab = None
        self.syn0 = None
        self.syn1neg = None
        self.syn1 = None
        self.tables = None
        self.huffman = None
        self.timings = {}
        self.last_train = None      # the latest run's w2v.training.lifecycle.RunResult
        self.run_state = None       # the latest run: epochs, epochs_done, corpus (see w2v.training.lifecycle.begin_run)
        self.corpus_tokens = None   # raw tokens of the corpus to train on
        self._encoded = None        # its encoded ids (w2v.text.encoded.EncodedCorpus)
        self._corpus_files = None   # its inputs, as absolute paths
        self._rng_states = None     # the workers' random states, continued by the next run
        self._built_from = None     # the settings the tables were built from (see BUILT_FROM)
        self._wv = None
        self._source = None         # the corpus of the encoded corpus (w2v.text.iterables.CorpusSource)
        self._scanned = None        # a corpus scanned, waiting for prepare_vocab, and its source
        self._scanned_source = None
        self._raw = None            # (words, counts) kept by prepare_vocab(keep_raw_vocab=True)
        self.corpus_count = 0       # gensim's: sentences and tokens read by the last vocabulary pass
        self.corpus_total_words = 0
        self.effective_min_count = self.settings.min_count
        self.max_final_vocab = options.max_final_vocab
        self.compute_loss = options.compute_loss
        self.comment = options.comment
        self.batch_words = options.batch_words   # gensim's job size: w2v sizes its jobs itself
        self.lifecycle_events = []
        if options.sentences is not None or options.corpus_file is not None:
            self._train_at_once(options)
        elif options.trim_rule is not None or options.callbacks:
            warnings.warn("trim_rule and callbacks apply when the model trains at once (with sentences or "
                          "corpus_file); give them to build_vocab() and train()", stacklevel=2)

    __init__.__signature__ = constructor_signature()

    @property
    def encoded_corpus(self):
        """The corpus to train on as vocabulary ids (:class:`w2v.text.encoded.EncodedCorpus`), or ``None``."""
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
    def set_vocabulary(self, vocab):
        """A new vocabulary: its sampling tables, fresh weights; no run state, no random states.

        Parameters
        ----------
        vocab : w2v.text.vocab.Vocab
        """
        self.vocab = vocab
        self.rebuild_tables()
        self._init_weights()
        self.run_state = None
        self._rng_states = None

    def grow_vocabulary(self, vocab, old):
        """An online update's vocabulary, whose first ``old`` words are the current ones.

        Their rows are kept; the new words get fresh input rows and zero output rows
        (:func:`w2v.training.weights.grow_weights`); the tables are rebuilt from the new counts,
        with ``hs`` the Huffman tree too (``syn1`` keeps its rows, as gensim's: a row
        then serves the node of that index in the new tree, and re-learns quickly).
        The run state is cleared.
        """
        self.vocab = vocab
        self.syn0, self.syn1neg, self.syn1 = grow_weights(self.syn0, self.syn1neg, self.syn1, self.settings, old,
                                                          len(vocab))
        self.rebuild_tables()
        self._wv = None
        self.run_state = None

    def set_corpus(self, encoded, n_tokens, files, vocab_seconds=None):
        """The corpus the next :meth:`train` trains on; the previous encoded corpus is closed.

        Parameters
        ----------
        encoded : w2v.text.encoded.EncodedCorpus or None
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
        huffman : w2v.training.sampling.HuffmanTree, optional
            With ``hs``: keep this tree (a loaded model's, or the current one
            when only ``sample``, ``negative`` or ``ns_exponent`` changed)
            instead of building one from the counts.
        """
        self.tables, self.huffman = build_tables(self.vocab.counts, self.settings, huffman)
        self._built_from = {k: getattr(self.settings, k) for k in BUILT_FROM}

    def _init_weights(self):
        # input vectors uniform in [-1/dim, 1/dim) as gensim 4 (w2v.training.weights.initial_input_rows), outputs 0
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
        ``corpus_words``, ``corpus_files``, and ``sharded`` for Dask), see :func:`w2v.training.lifecycle.begin_run`."""
        self.run_state = run_state

    def set_rng_states(self, states):
        """The workers' random states of the run (advanced in place by the kernels, saved with the model)."""
        self._rng_states = states

    def finish_epochs(self, epochs_done, result=None):
        """Record that the run has done ``epochs_done`` epochs; with ``result`` (the run's result so
        far) it becomes ``last_train``, its progress ticks are kept in ``run_state`` (a checkpoint
        saves them) and the cached vectors are dropped."""
        self.run_state["epochs_done"] = epochs_done
        for key in MID_EPOCH_KEYS:   # at an epoch's end
            self.run_state.pop(key, None)
        if result is not None and result.progress:
            self.run_state["progress"] = result.progress
        if result is not None:
            self._wv = None
            self.last_train = result

    def record_position(self, epochs_done, position, **state):
        """Record that the run stopped ``position`` ids into epoch ``epochs_done`` (0-based), for a checkpoint.

        ``state`` holds the other keys of :data:`w2v.training.lifecycle.MID_EPOCH_KEYS` (``mode``, ``epoch_stats``,
        ``round``...); ``position`` 0 is an epoch's end.
        """
        for key in MID_EPOCH_KEYS:
            self.run_state.pop(key, None)
        self.run_state["epochs_done"] = epochs_done
        if position:
            self.run_state.update(state, position=int(position))

    def snapshot(self):
        """A new model holding copies of this one's weights, random states and run state (not its corpus).

        What a checkpoint saves while this model trains on (:mod:`w2v.model.checkpoints`): copying the
        weights takes a fraction of the time writing them does.
        """
        copy = type(self)(**self.settings.to_dict())
        copy.vocab, copy.tables, copy.huffman = self.vocab, self.tables, self.huffman
        copy.syn0, copy.syn1neg, copy.syn1 = (np.array(a, copy=True) for a in (self.syn0, self.syn1neg, self.syn1))
        copy._rng_states = None if self._rng_states is None else np.array(self._rng_states, copy=True)
        copy.run_state = copy_state(self.run_state)
        copy._corpus_files = self._corpus_files
        copy._built_from = self._built_from
        copy.timings = dict(self.timings)
        return copy

    def record_run(self, result):
        """Store a finished run's result: ``last_train``, ``timings["train_seconds"]``; drop the cached vectors.

        Parameters
        ----------
        result : w2v.training.lifecycle.RunResult or None
        """
        self.timings["train_seconds"] = 0.0 if result is None else result.seconds
        self.last_train = result
        self._wv = None

    def invalidate_vectors(self):
        """Drop the cached :attr:`wv` (the weights changed); a copy kept elsewhere forgets its norms."""
        self._wv = None

    def restore(self, vocab, syn0, syn1neg, syn1, huffman=None, rng_states=None, run_state=None):
        """Install a saved model's state (what :func:`w2v.model.persist.load_model` read); return ``self``.

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
    @renamed(corpus="corpus_iterable")
    def train(self, corpus_iterable=None, corpus_file=None, total_examples=None, total_words=None, epochs=None,
              start_alpha=None, end_alpha=None, word_count=0, queue_factor=2, report_delay=1.0, compute_loss=False,
              callbacks=(), quiet=True, progress_stream=None, on_epoch_end=None, client=None, allow_binary=False,
              phrases=None, checkpoint=None, checkpoint_every=None, checkpoint_words=None, **dist_options):
        """Train for ``settings.epochs`` epochs.

        The learning rate decays from ``alpha`` to ``min_alpha`` over the
        epochs of this call (a trained or loaded model trained again starts a
        new schedule, as gensim does), except that a model holding an
        unfinished run (a checkpoint, see :meth:`save`) continues it when the
        corpus is the same (same encoded length); on another corpus a new run
        starts and a :class:`w2v.ResumeWarning` says so.

        Parameters
        ----------
        corpus_iterable : str, list of str, or iterable of list of str, optional
            Paths or sentences, as :meth:`build_vocab` takes them (``corpus``,
            its former name, works too).  On a model without a vocabulary,
            :meth:`build_vocab` runs on it first; on one that has one, it is
            encoded with that vocabulary (unknown words skipped).  The corpus
            read last is not read again (:mod:`w2v.model.reader`).  Without a
            corpus, train on the one read last.
        corpus_file, total_examples, total_words, epochs, start_alpha, end_alpha, word_count, queue_factor, \
report_delay, compute_loss, callbacks
            As gensim's (docs/gensim.md): ``epochs``, ``start_alpha`` and
            ``end_alpha`` change the settings; totals that disagree with the
            corpus read warn (the schedule follows the corpus); ``callbacks``
            are called as gensim calls them.
        quiet, allow_binary : bool
            No progress on stderr; read files that do not look like text.
        on_epoch_end : callable, optional
            ``on_epoch_end(epoch)`` after every epoch (0-based; ``run_state
            ["epochs_done"]`` is ``epoch + 1``), e.g. ``lambda e: m.save("ckpt")``.
        client : distributed.Client, optional
            Train on this Dask cluster (files readable by the workers), see
            :func:`w2v.distributed.train_distributed` (``dist_options``).
        allow_binary, phrases, checkpoint, checkpoint_every, checkpoint_words
            As :meth:`build_vocab`'s (``phrases`` not on Dask); save to ``checkpoint`` after each epoch and
            every ``"10m"`` or N ids (:mod:`w2v.model.checkpoints`).

        Returns
        -------
        Word2Vec or (int, int)
            ``self`` (``last_train`` holds the per-epoch loss and counts); given
            ``epochs``, ``total_examples`` or ``total_words`` (a gensim call),
            gensim's (words trained after subsampling, raw words).

        Raises
        ------
        VocabularyError
            No corpus given and none read before.
        CorpusError
            As :meth:`build_vocab`; or no sentence holds two words of the vocabulary, or no epoch trained.
        ParameterError
            An invalid setting, an iterator with several epochs, ``dim``, ``model`` or ``hs`` changed; a
            checkpoint saved within an epoch resumed in another mode, lanes or round size.
        DeviceError
            ``device="cuda"`` and no usable GPU (before the corpus is read).
        """
        gensim_call = self._apply_train_options(epochs, start_alpha, end_alpha, word_count, total_examples,
                                                total_words, compute_loss)
        self.settings.validate()   # settings may have been changed since the model was made
        self._apply_changed_settings()
        run = CallbackRun(self, callbacks, on_epoch_end)
        source = self._corpus_source(corpus_iterable, corpus_file, passes=self.settings.epochs, phrases=phrases)
        if client is not None:
            return self._train_on_cluster(source, client, quiet, progress_stream, run, allow_binary,
                                          dict(dist_options, checkpoint=checkpoint))
        self._check_local_run(dist_options)
        if source is not None:
            self._read_for_training(source, quiet, progress_stream, allow_binary)
        if self._encoded is None:
            raise VocabularyError("no corpus: call build_vocab(corpus) or train(corpus)")
        self._check_totals(total_examples, total_words)
        run.begin()
        self.record_run(self._run_epochs(quiet, progress_stream, run.epoch_hook, report_delay if gensim_call else None,
                                         (checkpoint, checkpoint_every, checkpoint_words)))
        self._check_trained()
        run.end()
        return self._train_result() if gensim_call else self

    def _check_local_run(self, dist_options):
        # before the corpus is read: no Dask options without a client, a GPU for device="cuda"
        if dist_options:
            raise TypeError(f"unexpected arguments without client: {', '.join(sorted(dist_options))}")
        if self.settings.device == "cuda":
            from ..cuda import require_cuda
            require_cuda()

    def _train_on_cluster(self, source, client, quiet, progress_stream, run, allow_binary, options):
        from ..distributed import train_distributed
        if source is not None and source.phrases is not None:
            raise ParameterError("phrases cannot be joined on a Dask cluster; join them with w2v phrases first")
        if options.pop("checkpoint") is not None or self.settings.deterministic:   # see docs/reproducibility.md
            raise ParameterError("a Dask run has its own fixed merges and checkpoints with on_epoch_end; "
                                 "deterministic=True and checkpoint= train on one machine")
        if source is not None and not source.reads_files:
            raise ParameterError("a Dask cluster trains on files its workers read: give paths, not sentences")
        corpus = None if source is None else source.paths
        if corpus is not None:   # the workers read it: its start is checked here
            check_text_files(corpus, allow_binary)
            self._source = source
        run.begin()
        train_distributed(self, corpus, client, quiet=quiet, progress_stream=progress_stream,
                          on_epoch_end=run.epoch_hook, **options)
        self._check_trained()
        run.end()
        return self

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

    def _run_epochs(self, quiet, progress_stream, on_epoch_end, interval=None, checkpoints=(None,)):
        s = self.settings
        if not self._encoded.has_context():
            n = len(self.vocab)
            raise CorpusError(f"nothing to train: no sentence of the corpus holds two words of the vocabulary "
                              f"({n:,} word{'s' if n != 1 else ''} of min_count {s.min_count} or more), so no "
                              "word has a context; give more text, or a lower min_count")
        progress = Progress(s.epochs * self._encoded.length, s, stream=progress_stream, quiet=quiet,
                            words_per_id=self.corpus_tokens / max(1, self._encoded.length), interval=interval)
        stop = threading.Event()
        run = run_epochs
        if s.device == "cuda":   # GPU training step, same schedule/tables/outputs (w2v.cuda)
            from ..cuda.train import run_epochs_cuda as run
        elif s.deterministic:   # lanes and rounds: the same vectors at any thread count
            from ..training.lanes import run_deterministic as run
        cp = open_checkpoints(self, *checkpoints, progress=progress)
        try:
            if cp is None:
                return run(self, progress=progress, stop_event=stop, on_epoch_end=on_epoch_end)
            result = run(self, progress=progress, stop_event=stop, on_epoch_end=cp.epoch_hook(on_epoch_end),
                         **({"checkpoints": cp} if cp.mid_epoch else {}))
            cp.close()
            return dataclasses.replace(result, details=dict(result.details, checkpoint=cp.last))
        except KeyboardInterrupt:
            stop.set()
            raise
        finally:
            if cp is not None:   # a stopped run leaves its last checkpoint complete
                cp.join()

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
            old.store.forget_norms()
        self.__dict__["_wv_cached"] = value

    @property
    def wv(self):
        """The trained input vectors as :class:`w2v.vectors.keyed.KeyedVectors` (shares memory)."""
        if self.vocab is None:
            raise VocabularyError("model has no vocabulary yet")
        if self._wv is None:
            from ..vectors.keyed import KeyedVectors
            self._wv = KeyedVectors(self.vocab.words, self.syn0, counts=self.vocab.counts,
                                    settings=self.settings.to_dict())
        return self._wv

    def save_word2vec(self, path, binary=True):
        """Write the vectors in word2vec.c's binary (default) or text format, atomically."""
        from ..vectors.keyed import save_word2vec_format
        save_word2vec_format(self.wv, path, binary=binary)

    def save(self, path):
        """Save the full model (to train it further) in the directory ``path``, atomically.

        Input and output weights, vocabulary with counts, Huffman tree,
        settings and the state of the latest run, as ``.npy`` arrays, a UTF-8
        ``vocab.tsv`` and JSON headers: no pickle.  The directory is also a
        native vectors directory, so ``w2v.load(path)`` reads its vectors.
        See :mod:`w2v.model.persist`.
        """
        from .persist import save_model
        save_model(self, path)

    @classmethod
    def load(cls, path, rethrow=False):
        """Load a model saved by :meth:`save`; ``train(corpus)`` then continues training.

        ``rethrow`` is gensim's: w2v always raises what goes wrong.

        Raises
        ------
        w2v.errors.FormatError
            A file is missing, truncated or corrupt (the message names it).
        """
        from .persist import load_model
        return load_model(cls, path)

    def close(self):
        """Release the encoded corpus (and its temporary file, if any) and the corpus it came from."""
        if self._encoded is not None:
            self._encoded.close()
            self._encoded = None
        self._drop_scan()
        self._source = None
