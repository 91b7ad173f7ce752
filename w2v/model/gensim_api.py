"""gensim 4's ``Word2Vec`` methods and attributes that w2v's own API does not need.

The attributes over the settings (``vector_size``, ``workers``, ``sg``,
``epochs``... made by :func:`setting_property`), ``running_training_loss``,
``get_latest_training_loss``, ``predict_output_word``, ``score``,
``estimate_memory``, and gensim's internal steps as thin equivalents
(``init_weights``, ``prepare_weights``, ``update_weights``,
``create_binary_tree``, ``init_sims``, ``seeded_vector``) are plain
functions and properties here, bound in the body of
:class:`~w2v.model.word2vec.Word2Vec` (``predict_output_word =
gensim_api.predict_output_word``).  Each takes the model as ``self``, the
name it has as a method, so that ``help(Word2Vec.score)`` and
``inspect.signature`` show gensim's signatures and these docstrings.

Why plain functions, not a mixin class: ``Word2Vec`` is their only user,
and a mixin writes into the state of the class it is mixed into, which it
does not declare.  These functions read the model's public attributes and
change it through its public methods only (``update_settings``,
``set_vocabulary``, ``grow_vocabulary``, ``rebuild_tables``), so the model
stays the only writer of its state; gensim's steps that do write it
(``reset_from``, ``add_lifecycle_event``) are methods of the class.

The functions ``Word2Vec.train`` calls for its gensim arguments
(:func:`train_setting_changes`, :func:`check_totals`, :func:`train_result`,
:func:`train_at_once`) are here too.  docs/gensim.md lists what differs
from gensim.
"""
import datetime
import itertools
import logging
import platform
import sys
import zlib

import numpy as np

from ..errors import CorpusWarning, ParameterError, VocabularyError
from ..util.caller_warnings import warn
from .reader import corpus_source_for

__all__ = ["setting_property", "train_setting_changes", "check_totals", "train_result", "train_at_once",
           "lifecycle_event"]

logger = logging.getLogger(__name__)
MAX_SCORED_WORDS = 10000   # gensim's MAX_SENTENCE_LEN: the known words of a sentence that score scores


def setting_property(name, doc, to_setting=None, from_setting=None):
    """A property over ``settings.<name>``, converted both ways.

    Reading gives the setting; writing goes through the model's
    :meth:`~w2v.model.word2vec.Word2Vec.update_settings` (the tables are
    rebuilt when a table setting changes; ``model``, ``dim`` and ``hs`` of a
    model with weights cannot change).
    """
    def get(self):
        value = getattr(self.settings, name)
        return from_setting(value) if from_setting else value

    def set_(self, value):
        self.update_settings(**{name: to_setting(value) if to_setting else value})

    return property(get, set_, doc=doc)


def _bool(value):
    return bool(value) if isinstance(value, (int, np.integer)) else value


vector_size = setting_property("dim", "gensim's name of ``settings.dim``.")
layer1_size = setting_property("dim", "gensim's name of the output layer size (``settings.dim``).")
workers = setting_property("threads", "gensim's name of ``settings.threads``.")
sg = setting_property("model", "1 for skip-gram, 0 for CBOW (``settings.model``).",
                      lambda v: "sg" if v else "cbow", lambda m: int(m == "sg"))
hs = setting_property("hs", "1 with hierarchical softmax (``settings.hs``).", _bool, int)
cbow_mean = setting_property("cbow_mean", "1: CBOW averages the context (``settings.cbow_mean``).", _bool, int)
window = setting_property("window", "``settings.window``.")
negative = setting_property("negative", "``settings.negative``.")
ns_exponent = setting_property("ns_exponent", "``settings.ns_exponent``.")
sample = setting_property("sample", "``settings.sample``.")
min_count = setting_property("min_count", "``settings.min_count``.")
max_vocab_size = setting_property("max_vocab_size", "``settings.max_vocab_size`` (w2v's meaning, docs/gensim.md).")
epochs = setting_property("epochs", "``settings.epochs``.")
alpha = setting_property("alpha", "``settings.alpha``.")
min_alpha = setting_property("min_alpha", "``settings.min_alpha``.")
seed = setting_property("seed", "``settings.seed``.")


def get_latest_training_loss(self):
    """The loss summed over every example of the latest :meth:`train` call (so far, in a callback).

    w2v measures the loss in every run, so ``compute_loss`` changes
    nothing; the sum is kept in float64 (gensim's float32 sum stops
    growing on large corpora).

    Returns
    -------
    float
    """
    return 0.0 if self.last_train is None else self.last_train.loss_sum


running_training_loss = property(get_latest_training_loss, doc="gensim's name of :meth:`get_latest_training_loss`.")


# ------------------------------------------------------------------ train's gensim arguments
def train_setting_changes(epochs, start_alpha, end_alpha, word_count):
    """The settings ``train``'s gensim arguments change: ``epochs``, ``alpha`` and ``min_alpha``.

    Raises
    ------
    ParameterError
        ``word_count`` other than 0.
    """
    if word_count:
        raise ParameterError("word_count: w2v starts each train() call's learning rate at alpha (as gensim 4, "
                             "which ignores it); only word_count=0 is accepted")
    changes = {}
    if epochs is not None:
        changes["epochs"] = epochs
    if start_alpha:
        changes["alpha"] = start_alpha
    if end_alpha:
        changes["min_alpha"] = end_alpha
    return changes


def check_totals(source, total_examples, total_words):
    """Warn when ``total_examples``/``total_words`` disagree with the corpus ``source`` read (the
    schedule follows the corpus)."""
    if source is None:
        return
    for name, given, read, unit in (("total_examples", total_examples, source.n_sentences, "sentences"),
                                    ("total_words", total_words, source.n_tokens, "words")):
        if given:
            if given != read:
                warn(f"{name}={given:,} differs from the {read:,} {unit} of the corpus: the "
                     f"learning rate decays over the corpus as read", CorpusWarning)
            return


def train_result(model):
    """gensim's return value of ``train``: (words trained after subsampling, raw words), all epochs."""
    result = model.last_train
    if result is None:
        return 0, 0
    return int(result.kept), int(model.corpus_tokens or 0) * len(result.epoch_loss)


def train_at_once(model, options):
    """``Word2Vec(sentences=...)`` or ``Word2Vec(corpus_file=...)``: build the vocabulary and train.

    ``options`` is the :class:`~w2v.model.gensim_params.GensimOptions` of the call.
    """
    epochs = model.settings.epochs
    # a generator (read once) is refused before anything is read, as gensim reads it epochs + 1 times
    corpus_source_for(model.settings, options.sentences, options.corpus_file, passes=epochs + 1)
    model.build_vocab(corpus_iterable=options.sentences, corpus_file=options.corpus_file,
                      trim_rule=options.trim_rule)
    model.train(total_examples=model.corpus_count, total_words=model.corpus_total_words, epochs=epochs,
                compute_loss=options.compute_loss, callbacks=options.callbacks)


# ------------------------------------------------------------------ queries
def predict_output_word(self, context_words_list, topn=10):
    """The most probable centre words given context words, from the negative-sampling output layer.

    As gensim's: the (mean, with ``cbow_mean``) context vector against
    every output vector, through a softmax; words (or row indices) outside
    the vocabulary are skipped.

    Returns
    -------
    list of (str, float) or None
        ``topn`` words by probability; ``None`` when no context word is known.

    Raises
    ------
    ParameterError
        The model was trained without negative sampling.
    """
    if not self.settings.negative:
        raise ParameterError("predict_output_word needs the negative-sampling output layer (negative > 0)")
    _require_vocab(self)
    wv = self.wv
    rows = [wv.get_index(w) for w in context_words_list if w in wv]
    if not rows:
        return None
    hidden = self.syn0[rows].sum(axis=0, dtype=np.float64)
    if self.settings.cbow_mean:
        hidden /= len(rows)
    scores = self.syn1neg.astype(np.float64) @ hidden
    prob = np.exp(scores - scores.max())
    prob /= prob.sum()
    top = np.argsort(-prob, kind="stable")[:topn]
    return [(self.vocab.words[i], float(prob[i])) for i in top]


def score(self, sentences, total_sentences=int(1e6), chunksize=100, queue_factor=2, report_delay=1):
    """The log-likelihood of each sentence under the hierarchical softmax output layer, as gensim's.

    Each word is predicted from each word of its full window (skip-gram)
    or from their sum or mean (CBOW); words outside the vocabulary are
    skipped, as is a code step whose dot product lies outside [-6, 6].
    The log-sigmoid is exact (gensim reads a table of 1,000 steps), and
    a sentence counts its first 10,000 known words.  ``chunksize``,
    ``queue_factor`` and ``report_delay`` are gensim's job sizes and
    logging, accepted.

    Returns
    -------
    numpy.ndarray of float32
        One score per sentence, for at most ``total_sentences`` sentences.

    Raises
    ------
    ParameterError
        The model was trained without hierarchical softmax.
    """
    if not self.settings.hs:
        raise ParameterError("score needs the hierarchical softmax output layer (hs=1)")
    _require_vocab(self)
    index = self.vocab.index
    scores = []
    for sentence in itertools.islice(sentences, total_sentences):
        ids = np.fromiter((index[w] for w in sentence if w in index), np.int64)[:MAX_SCORED_WORDS]
        scores.append(_score_ids(self, ids))
    return np.asarray(scores, np.float32)


def _score_ids(model, ids):
    t, s = model.tables, model.settings
    syn0, syn1, window = model.syn0, model.syn1, s.window
    total = 0.0
    for i, word in enumerate(ids):
        context = np.concatenate([ids[max(0, i - window):i], ids[i + 1:i + window + 1]])
        n = int(t.hs_lengths[word])
        if n == 0 or context.size == 0:
            continue
        nodes = syn1[t.hs_points[word, :n]].astype(np.float64)
        sign = 1.0 - 2.0 * t.hs_codes[word, :n]
        if s.sg:
            dots = syn0[context].astype(np.float64) @ nodes.T * sign
        else:
            hidden = syn0[context].sum(axis=0, dtype=np.float64)
            dots = nodes @ (hidden / context.size if s.cbow_mean else hidden) * sign
        dots = dots[np.abs(dots) < 6.0]
        total += float(-np.logaddexp(0.0, -dots).sum())
    return total


def estimate_memory(self, vocab_size=None, report=None):
    """Bytes the model's arrays take for ``vocab_size`` words (default: the vocabulary's), as gensim's report.

    Returns
    -------
    dict
        ``vocab`` (words, counts, index and tables: an estimate),
        ``vectors``, ``syn1neg``/``syn1`` where trained, ``encoded`` (the
        encoded corpus kept in RAM) and ``total``.
    """
    s = self.settings
    n = vocab_size or (len(self.vocab) if self.vocab is not None else 0)
    report = dict(report or {})
    report["vocab"] = n * 200
    report["vectors"] = n * s.dim * 4
    if s.negative:
        report["syn1neg"] = n * s.dim * 4
    if s.hs:
        report["syn1"] = max(0, n - 1) * s.dim * 4
    enc = self.encoded_corpus
    report["encoded"] = 0 if enc is None or enc.on_disk else enc.length * 4
    report.pop("total", None)
    report["total"] = sum(report.values())
    return report


# ------------------------------------------------------------------ gensim's steps, thin
def init_weights(self):
    """Fresh weights for the vocabulary as it is (gensim's ``init_weights``)."""
    _require_vocab(self)
    self.set_vocabulary(self.vocab)


def update_weights(self):
    """Rows for words added to the vocabulary since the weights were made (none: w2v's updates add them)."""
    _require_vocab(self)
    if self.syn0.shape[0] < len(self.vocab):
        self.grow_vocabulary(self.vocab, self.syn0.shape[0])


def prepare_weights(self, update=False):
    """gensim's ``prepare_weights``: :meth:`update_weights` with ``update``, else :meth:`init_weights`."""
    if update:
        self.update_weights()
    else:
        self.init_weights()


def create_binary_tree(self):
    """Rebuild the Huffman tree (and the other sampling tables) from the vocabulary's counts."""
    _require_vocab(self)
    self.rebuild_tables()


def init_sims(self, replace=False):
    """Deprecated in gensim: :meth:`w2v.vectors.keyed.KeyedVectors.init_sims` of :attr:`wv`."""
    self.wv.init_sims(replace=replace)


def seeded_vector(self, seed_string, vector_size):
    """A pseudo-random vector of ``vector_size`` floats in [-0.5, 0.5) / ``vector_size``, from a string.

    Deprecated in gensim.  The same string gives the same vector in any
    process (a CRC-32 of its UTF-8 bytes seeds the generator).
    """
    rng = np.random.default_rng(zlib.crc32(str(seed_string).encode("utf-8")))
    return ((rng.random(vector_size) - 0.5) / vector_size).astype(np.float32)


def lifecycle_event(owner, event_name, log_level, event):
    """gensim's record of a lifecycle event of ``owner`` (a class name), logged at ``log_level``.

    Returns
    -------
    dict
        A copy of ``event`` with ``event``, ``datetime``, ``python`` and ``platform`` added.
    """
    event = dict(event)
    event.update(event=event_name, datetime=datetime.datetime.now().isoformat(), python=sys.version,
                 platform=platform.platform())
    if log_level:
        logger.log(log_level, "%s lifecycle event %s", owner, event)
    return event


def _require_vocab(model):
    if model.vocab is None:
        raise VocabularyError("model has no vocabulary yet: call build_vocab(corpus) first")
