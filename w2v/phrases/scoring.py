"""How a pair is scored: the three built-in scorings in bulk, and gensim's scoring functions.

* ``"word2vec"``: word2vec.c's ``word2phrase``, in float32;
* ``"gensim"`` (gensim's ``"default"``): gensim's :func:`original_scorer`, in float64;
* ``"npmi"``: gensim's :func:`npmi_scorer`;
* a callable with gensim's signature ``(worda_count, wordb_count, bigram_count, len_vocab,
  min_count, corpus_word_count)``: called once per pair, with keyword arguments and Python
  ints, as gensim's ``Phrases.score_candidate`` calls it (slower: one Python call per pair).

A scoring function is code, and w2v's model files hold none: a model scored by
:func:`original_scorer` or :func:`npmi_scorer` (w2v's or gensim's) is saved with the
function's name (:func:`scorer_reference`); any other function cannot be saved.
"""
import inspect
import math
import numbers

import numpy as np

from ..errors import ParameterError
from ..kernels.phrases import npmi_scores

SCORINGS = ("word2vec", "gensim", "npmi")
SCORING_ALIASES = {"default": "gensim"}   # gensim's name of its original scorer
#: the parameters gensim passes a scoring function, by keyword
SCORER_PARAMS = ("worda_count", "wordb_count", "bigram_count", "len_vocab", "min_count", "corpus_word_count")


def original_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    """gensim's default score: ``(bigram_count - min_count) / (worda_count * wordb_count) * len_vocab``
    (``-inf`` when a count is 0)."""
    denom = worda_count * wordb_count
    if denom == 0:
        return float("-inf")
    return (bigram_count - min_count) / float(denom) * len_vocab


def npmi_scorer(worda_count, wordb_count, bigram_count, len_vocab, min_count, corpus_word_count):
    """gensim's normalized pointwise mutual information, in [-1, 1] (``-inf`` below ``min_count``)."""
    if bigram_count < min_count:
        return float("-inf")
    n = float(corpus_word_count)
    pa, pb, pab = worda_count / n, wordb_count / n, bigram_count / n
    try:
        return math.log(pab / (pa * pb)) / -math.log(pab)
    except (ValueError, ZeroDivisionError):
        return float("-inf")


#: the scoring functions saved by name: w2v's own, and gensim's functions of the same names
NAMED_SCORERS = {"original_scorer": original_scorer, "npmi_scorer": npmi_scorer}
_GENSIM_MODULE = "gensim.models.phrases"


def scoring_name(scoring):
    """The canonical form of ``scoring``: a built-in scoring's name (``"default"`` is gensim's name of
    ``"gensim"``), or a scoring function, checked as gensim checks it.

    Raises
    ------
    ParameterError
        Not a known scoring, or a function that lacks one of :data:`SCORER_PARAMS`.
    """
    if callable(scoring):
        return check_scorer(scoring)
    name = SCORING_ALIASES.get(scoring, scoring) if isinstance(scoring, str) else None
    if name not in SCORINGS:
        raise ParameterError(f"scoring must be one of {', '.join(SCORINGS)} (or 'default', gensim's "
                             f"name of 'gensim'), or a function of {', '.join(SCORER_PARAMS)}, not {scoring!r}")
    return name


def check_scorer(scorer):
    """``scorer`` if its named parameters include every one of :data:`SCORER_PARAMS`, as gensim
    requires (it passes them by keyword); else a :class:`ParameterError` naming the missing ones."""
    try:
        names = inspect.getfullargspec(scorer).args
    except TypeError:   # a callable inspect cannot read (some built-ins)
        names = []
    missing = [p for p in SCORER_PARAMS if p not in names]
    if missing:
        raise ParameterError(f"scoring function missing expected parameters {missing}")
    return scorer


def scorer_reference(scorer):
    """The name a model file records for the scoring function ``scorer`` (``"original_scorer"``,
    ``"npmi_scorer"``), or ``None`` for any function but those two (w2v's or gensim's)."""
    for name, own in NAMED_SCORERS.items():
        if scorer is own or (getattr(scorer, "__module__", None) == _GENSIM_MODULE
                             and getattr(scorer, "__qualname__", None) == name):
            return name
    return None


def score_pairs(scoring, keys, pair_counts, unigram, min_count, corpus_words, len_vocab):
    """The score of each pair, with each reference's arithmetic.

    * ``word2vec``: word2phrase's ``(pab - min_count) / pa / pb * train_words``
      in float32, 0 where ``a``, ``b`` or the pair is seen fewer than
      ``min_count`` times (word2phrase then scores 0);
    * ``gensim``: gensim's ``original_scorer``, ``(pab - min_count) / (pa * pb) * len_vocab``
      in float64;
    * ``npmi``: gensim's ``npmi_scorer`` (``-inf`` below ``min_count``);
    * a function: its answer for each pair (:func:`call_scorer`).

    Returns
    -------
    numpy.ndarray
        float32 for ``word2vec``, float64 otherwise.
    """
    a = keys >> 32
    b = keys & 0xFFFFFFFF
    pa = unigram[a]
    pb = unigram[b]
    if callable(scoring):
        return call_scorer(scoring, pa, pb, pair_counts, len_vocab, min_count, corpus_words)
    if scoring == "word2vec":
        valid = (pa >= min_count) & (pb >= min_count) & (pair_counts >= min_count)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (pair_counts - min_count).astype(np.float32) / pa.astype(np.float32) / pb.astype(np.float32)
            score = score * np.float32(corpus_words)
        return np.where(valid, score, np.float32(0))
    if scoring == "gensim":
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (pair_counts - min_count).astype(np.float64) / (pa * pb).astype(np.float64)
            return score * np.float64(len_vocab)
    out = np.empty(keys.size, np.float64)
    npmi_scores(pa.astype(np.float64), pb.astype(np.float64), pair_counts.astype(np.float64), corpus_words,
                min_count, out)
    return out


def call_scorer(scorer, worda_counts, wordb_counts, bigram_counts, len_vocab, min_count, corpus_word_count):
    """``scorer``'s score of each pair, called as gensim calls it: by keyword, with Python ints.

    Raises
    ------
    ParameterError
        The function returned something that is not a real number.
    """
    out = np.empty(len(bigram_counts), np.float64)
    fixed = dict(len_vocab=int(len_vocab), min_count=int(min_count), corpus_word_count=int(corpus_word_count))
    rows = zip(np.asarray(worda_counts).tolist(), np.asarray(wordb_counts).tolist(),
               np.asarray(bigram_counts).tolist())
    for i, (na, nb, nab) in enumerate(rows):
        score = scorer(worda_count=na, wordb_count=nb, bigram_count=nab, **fixed)
        if not isinstance(score, numbers.Real):
            raise ParameterError(f"scoring function {getattr(scorer, '__name__', scorer)!r} returned {score!r} "
                                 f"for counts ({na}, {nb}, {nab}): a score must be a real number")
        out[i] = score
    return out


def is_phrase(scoring, scores, threshold):
    """Which scores make a phrase: above ``threshold`` (as float32 for ``word2vec``, where
    word2phrase reads the threshold into a float).  A NaN score is never above it."""
    if scoring == "word2vec":
        return scores > np.float32(threshold)
    return scores > threshold
