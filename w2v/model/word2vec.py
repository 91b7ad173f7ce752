"""The ``Word2Vec`` model: owns its state and orchestrates corpus, vocabulary, tables and training.

:class:`Word2Vec` is the only writer of its own attributes.  The runners,
the run lifecycle, the checkpoints and the persistence read its public
attributes and change it through its methods: ``set_vocabulary``,
``grow_vocabulary`` (an online update), ``set_corpus``, ``rebuild_tables``,
``update_settings``, ``start_run``, ``set_rng_states``, ``finish_epochs``,
``record_position``, ``record_run``, ``invalidate_vectors``, ``restore`` (a
loaded model's state) and ``snapshot`` (a copy a checkpoint writes while
training goes on).  Read-only properties give the rest of the state:
``encoded_corpus``, ``corpus_files`` and ``rng_states``.

Settings are never changed in place: ``update_settings`` makes a new
:class:`~w2v.settings.Settings` (:func:`dataclasses.replace`, which
validates it), rebuilds the tables where a table setting changed, and
refuses to change ``model``, ``dim`` or ``hs`` of a model with weights.
Assigning ``settings``, and gensim's attributes over the settings
(``m.sample = 1e-4``), go through it.

The model's parts hand it values that it installs itself: its
:class:`~w2v.model.reader.CorpusReader` reads corpora and returns a
:class:`~w2v.model.reader.CorpusRead`; :mod:`w2v.model.runs` runs the
epochs on the back end the settings pick and returns the run's result.
The methods that read corpora (:mod:`w2v.model.corpus_api`) and gensim's
other names (:mod:`w2v.model.gensim_api`) are plain functions bound in the
class body, and the constructor's parameters are :mod:`w2v.model.gensim_params`'s.
"""
import copy as _copy
import dataclasses
import logging

import numpy as np

from . import corpus_api, gensim_api, persist
from ..errors import ParameterError, VocabularyError
from ..settings import TABLE_SETTINGS, Settings, changed_settings
from ..training.callbacks import CallbackRun
from ..training.sampling import build_tables
from ..training.weights import fresh_weights, grow_weights
from ..training.lifecycle import MID_EPOCH_KEYS
from ..util.aliases import renamed
from ..vectors.keyed import KeyedVectors, save_word2vec_format
from ..util.caller_warnings import warn
from .gensim_api import check_totals, lifecycle_event, train_at_once, train_result, train_setting_changes
from .gensim_params import constructor_arguments, constructor_signature
from .reader import CorpusReader, corpus_source_for, same_corpus
from .runs import check_local_run, check_trained, cluster_corpus, run_epochs_of


def copy_state(state):
    """A deep copy of a run state (plain dicts, lists and numbers)."""
    return None if state is None else _copy.deepcopy(state)


class Word2Vec:
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
        self._settings = Settings(**settings)   # replaced, never changed (update_settings)
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
        self._source = None         # the corpus it was read from (w2v.text.iterables.CorpusSource)
        self._rng_states = None     # the workers' random states, continued by the next run
        self._wv = None
        self._reader = CorpusReader()   # reads corpora, keeps a scan waiting for prepare_vocab
        self.corpus_count = 0       # gensim's: sentences and tokens read by the last vocabulary pass
        self.corpus_total_words = 0
        self.effective_min_count = self.settings.min_count
        self.max_final_vocab = options.max_final_vocab
        self.compute_loss = options.compute_loss
        self.comment = options.comment
        self.batch_words = options.batch_words   # gensim's job size: w2v sizes its jobs itself
        self.lifecycle_events = []
        if options.sentences is not None or options.corpus_file is not None:
            train_at_once(self, options)
        elif options.trim_rule is not None or options.callbacks:
            warn("trim_rule and callbacks apply when the model trains at once (with sentences or "
                 "corpus_file); give them to build_vocab() and train()")

    __init__.__signature__ = constructor_signature()

    @property
    def settings(self):
        """The model's :class:`w2v.settings.Settings`; assigning new ones goes through :meth:`update_settings`."""
        return self._settings

    @settings.setter
    def settings(self, value):
        if not isinstance(value, Settings):
            raise ParameterError(f"settings must be a w2v.Settings, not {type(value).__name__}")
        old = self._settings
        self.update_settings(**{f.name: getattr(value, f.name) for f in dataclasses.fields(Settings)
                                if getattr(value, f.name) != getattr(old, f.name)})

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

    # ------------------------------------------------------------------ reading corpora (w2v.model.corpus_api)
    build_vocab = corpus_api.build_vocab
    scan_vocab = corpus_api.scan_vocab
    prepare_vocab = corpus_api.prepare_vocab
    build_vocab_from_freq = corpus_api.build_vocab_from_freq
    read_corpus = corpus_api.read_corpus
    raw_vocab = corpus_api.raw_vocab

    # ------------------------------------------------------------------ gensim's names (w2v.model.gensim_api)
    vector_size = gensim_api.vector_size
    layer1_size = gensim_api.layer1_size
    workers = gensim_api.workers
    sg = gensim_api.sg
    hs = gensim_api.hs
    cbow_mean = gensim_api.cbow_mean
    window = gensim_api.window
    negative = gensim_api.negative
    ns_exponent = gensim_api.ns_exponent
    sample = gensim_api.sample
    min_count = gensim_api.min_count
    max_vocab_size = gensim_api.max_vocab_size
    epochs = gensim_api.epochs
    alpha = gensim_api.alpha
    min_alpha = gensim_api.min_alpha
    seed = gensim_api.seed
    running_training_loss = gensim_api.running_training_loss
    get_latest_training_loss = gensim_api.get_latest_training_loss
    predict_output_word = gensim_api.predict_output_word
    score = gensim_api.score
    estimate_memory = gensim_api.estimate_memory
    init_weights = gensim_api.init_weights
    update_weights = gensim_api.update_weights
    prepare_weights = gensim_api.prepare_weights
    create_binary_tree = gensim_api.create_binary_tree
    init_sims = gensim_api.init_sims
    seeded_vector = gensim_api.seeded_vector

    def reset_from(self, other_model):
        """Take ``other_model``'s vocabulary (and corpus counts) with fresh weights, as gensim's."""
        if other_model.vocab is None:
            raise VocabularyError("reset_from: the other model has no vocabulary")
        self.set_vocabulary(other_model.vocab)
        self.corpus_count = other_model.corpus_count
        self.corpus_total_words = other_model.corpus_total_words

    def add_lifecycle_event(self, event_name, log_level=logging.INFO, **event):
        """Append an event to :attr:`lifecycle_events` and log it, as gensim's."""
        self.lifecycle_events.append(lifecycle_event(type(self).__name__, event_name, log_level, event))

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

    def _init_weights(self):
        # input vectors uniform in [-1/dim, 1/dim) as gensim 4 (w2v.training.weights.initial_input_rows), outputs 0
        self.syn0, self.syn1neg, self.syn1 = fresh_weights(self.settings, len(self.vocab))
        self._wv = None

    # ------------------------------------------------------------------ settings
    def update_settings(self, **changes):
        """Change settings, e.g. more epochs or threads to resume a model with.

        The settings become a new :class:`~w2v.settings.Settings` object (the
        one they were is not changed).  ``model``, ``dim`` and ``hs`` of a
        model with weights cannot change, nor ``negative`` from 0 to more
        (there are no output vectors for it); the sampling tables are
        rebuilt when ``sample``, ``ns_exponent`` or ``negative`` change.

        Returns
        -------
        Word2Vec
            ``self``.

        Raises
        ------
        ParameterError
            An invalid value or a structural change.
        TypeError
            An unknown setting.
        """
        old = self._settings
        # a new object, validated; a model without weights may still change its structure
        new = changed_settings(old, True, **changes) if self.syn0 is not None else dataclasses.replace(old, **changes)
        self._settings = new
        if self.vocab is not None and any(getattr(new, k) != getattr(old, k) for k in TABLE_SETTINGS):
            self.rebuild_tables(self.huffman)
        self._wv = None
        return self

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
            An invalid ``epochs``, ``start_alpha`` or ``end_alpha``, an iterator with several epochs, weights
            that do not fit the settings; a checkpoint saved within an epoch resumed in another mode, lanes
            or round size.
        DeviceError
            ``device="cuda"`` and no usable GPU (before the corpus is read).
        """
        gensim_call = epochs is not None or total_examples is not None or total_words is not None
        self._apply_train_options(epochs, start_alpha, end_alpha, word_count, compute_loss)
        run = CallbackRun(self, callbacks, on_epoch_end)
        source = corpus_source_for(self.settings, corpus_iterable, corpus_file, self.settings.epochs, phrases)
        if client is not None:
            return self._train_on_cluster(source, client, quiet, progress_stream, run, allow_binary,
                                          dict(dist_options, checkpoint=checkpoint))
        check_local_run(self.settings, dist_options)
        if source is not None:
            self._read_for_training(source, quiet, progress_stream, allow_binary)
        if self._encoded is None:
            raise VocabularyError("no corpus: call build_vocab(corpus) or train(corpus)")
        check_totals(self._source, total_examples, total_words)
        run.begin()
        self.record_run(run_epochs_of(self, quiet, progress_stream, run.epoch_hook,
                                      report_delay if gensim_call else None, checkpoint, checkpoint_every,
                                      checkpoint_words))
        check_trained(self.last_train, self.settings)
        run.end()
        return train_result(self) if gensim_call else self

    def _apply_train_options(self, epochs, start_alpha, end_alpha, word_count, compute_loss):
        # train's gensim arguments: epochs, start_alpha and end_alpha change the settings
        changes = train_setting_changes(epochs, start_alpha, end_alpha, word_count)
        if changes:
            self.update_settings(**changes)
        self.compute_loss = bool(compute_loss)

    def _train_on_cluster(self, source, client, quiet, progress_stream, run, allow_binary, options):
        # start-up: the Dask back end (+10 to 70 ms) loads for a cluster run only
        from ..distributed import train_distributed
        corpus = cluster_corpus(source, self.settings, options.pop("checkpoint"), allow_binary)
        if corpus is not None:
            self._source = source
        run.begin()
        train_distributed(self, corpus, client, quiet=quiet, progress_stream=progress_stream,
                          on_epoch_end=run.epoch_hook, **options)
        check_trained(self.last_train, self.settings)
        run.end()
        return self

    # ------------------------------------------------------------------ reading (w2v.model.corpus_api)
    def _count_corpus(self, read):
        """gensim's totals of the corpus read: ``corpus_count`` sentences, ``corpus_total_words`` tokens."""
        self.corpus_count, self.corpus_total_words = read.n_sentences, read.n_tokens

    def _take_vocabulary_pass(self, read, changes, dry_run):
        """Install a vocabulary pass (``build_vocab``, ``prepare_vocab``): the corpus' totals and timings;
        unless ``dry_run``, ``changes`` (``min_count``, ``sample``) as settings, the corpus and the vocabulary."""
        self._count_corpus(read)
        if not dry_run:
            if changes:
                self.update_settings(**changes)
            self._take_corpus(read)
            self._take_vocabulary(read)
        if read.kernel_load_seconds is not None:   # build_vocab's
            self.timings.update(kernel_load_seconds=read.kernel_load_seconds, vocab_seconds=read.seconds)

    def _take_counted_vocabulary(self, read, update):
        """Install a vocabulary made from counts (``build_vocab_from_freq``); a new one has no corpus."""
        self._take_vocabulary(read)
        if not update:
            self._take_corpus(read)
        self.corpus_count = read.n_sentences

    def _take_corpus(self, read):
        """Make the corpus of ``read`` (a :class:`~w2v.model.reader.CorpusRead`) the one to train on."""
        self.set_corpus(read.encoded, read.n_tokens, read.files, vocab_seconds=read.seconds)
        self._source = read.source

    def _take_vocabulary(self, read):
        """Install the vocabulary of ``read``: new (fresh weights) or grown (an online update)."""
        if read.grown_from is None:
            self.set_vocabulary(read.vocab)
        else:
            self.grow_vocabulary(read.vocab, read.grown_from)
        self.effective_min_count = read.effective_min_count

    def _read_for_training(self, source, quiet, progress_stream, allow_binary):
        """Make ``source`` the corpus to train on: kept when it is the one read last, encoded with the
        model's vocabulary, or (without one) read by :meth:`build_vocab`."""
        if self.vocab is not None:
            self.vocab.check()   # edited by hand: refused before anything is read or trained
        if self._encoded is not None and same_corpus(source, self._source):
            return
        if self.vocab is not None:
            self._take_corpus(self._reader.encode(source, self.settings, self.vocab, quiet, progress_stream,
                                                  allow_binary))
        else:
            self.build_vocab(source.iterable if source.iterable is not None else source.paths, quiet=quiet,
                             progress_stream=progress_stream, allow_binary=allow_binary, phrases=source.phrases)

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
            self._wv = KeyedVectors(self.vocab.words, self.syn0, counts=self.vocab.counts,
                                    settings=self.settings.to_dict())
        return self._wv

    def save_word2vec(self, path, binary=True):
        """Write the vectors in word2vec.c's binary (default) or text format, atomically."""
        save_word2vec_format(self.wv, path, binary=binary)

    def save(self, path):
        """Save the full model (to train it further) to ``path``, atomically: a directory, or one file.

        Input and output weights, vocabulary with counts, Huffman tree,
        settings and the state of the latest run, as ``.npy`` arrays, a UTF-8
        ``vocab.tsv`` and JSON headers: no pickle.  An existing file (an
        empty one, as ``tempfile.NamedTemporaryFile`` makes, or a model saved
        there before) and a new path ending in ``.w2v`` get one file, an
        uncompressed zip archive of those files whose arrays are
        memory-mapped in place; any other path gets a directory
        (:func:`w2v.formats.writes_single_file`).  Either is also a native
        vectors model, so ``w2v.load(path)`` reads its vectors.  See
        :mod:`w2v.model.persist` and docs/formats.md.
        """
        persist.save_model(self, path)

    @classmethod
    def load(cls, path, rethrow=False):
        """Load a model saved by :meth:`save` (a directory, or one file); ``train(corpus)`` then continues training.

        ``rethrow`` is gensim's: w2v always raises what goes wrong.

        Raises
        ------
        w2v.errors.FormatError
            A file is missing, truncated or corrupt (the message names it);
            a Python pickle written by gensim's ``save`` (w2v never
            unpickles: the message says how to carry its vectors over).
        """
        return persist.load_model(cls, path)

    def __str__(self):
        """gensim's summary: ``Word2Vec<vocab=V, vector_size=D, alpha=A>`` (``vocab=0`` before a vocabulary)."""
        return (f"{type(self).__name__}<vocab={0 if self.vocab is None else len(self.vocab)}, "
                f"vector_size={self.settings.dim}, alpha={self.settings.alpha}>")

    __repr__ = __str__   # gensim's repr is object's; its summary says more

    def close(self):
        """Release the encoded corpus (and its temporary file, if any) and the corpus it came from."""
        if self._encoded is not None:
            self._encoded.close()
            self._encoded = None
        self._reader.close()
        self._source = None
