"""Intrinsic evaluation methods of :class:`w2v.vectors.keyed.KeyedVectors`, under gensim's names.

gensim's ``evaluate_word_analogies``, ``evaluate_word_pairs``,
``log_accuracy`` and ``log_evaluate_word_pairs``; the work is done by
:mod:`w2v.vectors.evaluate`.  They are plain functions bound in the class
body of :class:`~w2v.vectors.keyed.KeyedVectors` (the first two as methods,
their first parameter ``self``, see :mod:`w2v.vectors.keyed`; the loggers as
static methods).
"""
import logging

from . import evaluate
from ..util.aliases import renamed
from ..errors import ParameterError

logger = logging.getLogger(__name__)

__all__ = ["evaluate_word_analogies", "evaluate_word_pairs", "log_accuracy", "log_evaluate_word_pairs"]

# gensim's similarity_function names, and w2v's former method names, to the method of w2v.vectors.evaluate
_ANALOGY_METHODS = {"most_similar": "3cosadd", "most_similar_cosmul": "3cosmul",
                    "3cosadd": "3cosadd", "3cosmul": "3cosmul"}


@renamed(path="analogies", method="similarity_function")
def evaluate_word_analogies(self, analogies, restrict_vocab=300000, case_insensitive=True, dummy4unknown=False,
                            similarity_function="most_similar"):
    """Accuracy on an analogy test set; see :func:`w2v.vectors.evaluate.evaluate_word_analogies`.

    Parameters
    ----------
    analogies : str or os.PathLike
        The questions file (``path`` is an alias).
    restrict_vocab : int or None, optional
        Use only the first ``restrict_vocab`` words.
    case_insensitive : bool, optional
        Compare upper-cased words.
    dummy4unknown : bool, optional
        Count out-of-vocabulary questions as incorrect.
    similarity_function : str, optional
        ``'most_similar'`` (3CosAdd) or ``'most_similar_cosmul'``
        (3CosMul); ``method`` is an alias taking ``'3cosadd'`` or
        ``'3cosmul'`` too.  (gensim 4.4 takes the name but always uses
        ``most_similar``.)

    Returns
    -------
    score : float
    sections : list of dict
        gensim's, each with an ``'oov'`` list added.

    Raises
    ------
    ParameterError
        An unknown ``similarity_function``, or a bad ``restrict_vocab``.
    FormatError, FileNotFoundError
        As :func:`w2v.vectors.evaluate.evaluate_word_analogies`.
    """
    method = _ANALOGY_METHODS.get(similarity_function) if isinstance(similarity_function, str) else None
    if method is None:
        raise ParameterError(f"similarity_function must be 'most_similar' or 'most_similar_cosmul', "
                             f"got {similarity_function!r}")
    return evaluate.evaluate_word_analogies(self, analogies, restrict_vocab=restrict_vocab,
                                            case_insensitive=case_insensitive,
                                            dummy4unknown=dummy4unknown, method=method)


@renamed(path="pairs")
def evaluate_word_pairs(self, pairs, delimiter="\t", encoding="utf8", restrict_vocab=300000,
                        case_insensitive=True, dummy4unknown=False):
    """Correlation with human similarity judgements; see :func:`w2v.vectors.evaluate.evaluate_word_pairs`.

    Parameters
    ----------
    pairs : str or os.PathLike
        The word-pair file (``path`` is an alias).
    delimiter : str, optional
        With the default tab, a line holding a tab is split at tabs, as
        gensim does, and a line without one at commas or else at
        whitespace (gensim skips it).  Another delimiter splits every line
        at it only.  The score is the first number after the two words.
    encoding : str, optional
        The file's encoding.
    restrict_vocab : int or None, optional
        Use only the first ``restrict_vocab`` words.
    case_insensitive : bool, optional
        Compare upper-cased words.
    dummy4unknown : bool, optional
        Give pairs with unknown words similarity 0 instead of skipping them.

    Returns
    -------
    pearson, spearman : tuple of (float, float)
    oov_ratio : float

    Raises
    ------
    ParameterError, FormatError, VocabularyError, FileNotFoundError
        As :func:`w2v.vectors.evaluate.evaluate_word_pairs`.
    """
    return evaluate.evaluate_word_pairs(self, pairs, restrict_vocab=restrict_vocab,
                                        case_insensitive=case_insensitive, dummy4unknown=dummy4unknown,
                                        delimiter=None if delimiter == "\t" else delimiter, encoding=encoding)


def log_accuracy(section):
    """Log the accuracy of one section of :meth:`evaluate_word_analogies` (gensim's helper).

    Parameters
    ----------
    section : dict
        With ``'section'``, ``'correct'`` and ``'incorrect'``; nothing is
        logged when it holds no answered question.
    """
    correct, incorrect = len(section["correct"]), len(section["incorrect"])
    if correct + incorrect > 0:
        logger.info("%s: %.1f%% (%i/%i)", section["section"], 100.0 * correct / (correct + incorrect),
                    correct, correct + incorrect)


def log_evaluate_word_pairs(pearson, spearman, oov, pairs):
    """Log the figures of :meth:`evaluate_word_pairs` (gensim's helper).

    Parameters
    ----------
    pearson, spearman : tuple of (float, float)
    oov : float
        The percentage of pairs with unknown words.
    pairs : str
        The file, named in the lines.
    """
    logger.info("Pearson correlation coefficient against %s: %.4f", pairs, pearson[0])
    logger.info("Spearman rank-order correlation coefficient against %s: %.4f", pairs, spearman[0])
    logger.info("Pairs with unknown words ratio: %.1f%%", oov)
