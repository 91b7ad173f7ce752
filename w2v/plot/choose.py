"""Which words a word map shows: the most frequent, a list, or groups of neighbours."""
import dataclasses
import os

import numpy as np

from ..util.checks import is_integer
from ..errors import ParameterError, UnknownWordError

__all__ = ["Selection", "select_words", "parse_word_list", "rows_needed"]

DEFAULT_TOP = 300
MAX_WORDS = 5000   # words on one map: beyond, neither labels nor t-SNE make a readable picture


@dataclasses.dataclass
class Selection:
    """The words of a map, their vectors and groups.

    Attributes
    ----------
    words : list of str
    vectors : numpy.ndarray
        float32, one row per word.
    groups : numpy.ndarray
        int, the group of each word (0 without groups); with ``--neighbours``,
        the index of its head word.
    group_names : list of str
        The head words of the groups (empty without groups).
    heads : numpy.ndarray
        bool, the words the groups were asked around.
    """

    words: list
    vectors: np.ndarray
    groups: np.ndarray
    group_names: list
    heads: np.ndarray

    def __len__(self):
        return len(self.words)


def rows_needed(top=DEFAULT_TOP, skip_top=0, words=None, neighbours=None):
    """How many rows of the vectors file a selection needs: ``skip_top + top`` for the most
    frequent words, None (all of them) for a list of words or for neighbours."""
    if words is not None or neighbours:
        return None
    return _check_count("skip_top", skip_top, 0) + _check_count("top", top, 1)


def select_words(kv, top=DEFAULT_TOP, skip_top=0, words=None, neighbours=None, topn=10, restrict_vocab=None):
    """The words to draw from ``kv``, in the order their labels are placed.

    Exactly one way applies: ``neighbours`` (each word and its ``topn``
    nearest, a group each; a word near two heads joins the first), else
    ``words``, else the ``top`` most frequent words after the ``skip_top``
    most frequent (rows ``skip_top .. skip_top + top`` of ``kv``).

    Parameters
    ----------
    kv : KeyedVectors
    top, skip_top : int
    words : list of str, optional
    neighbours : list of str, optional
    topn : int
        Neighbours of each head word.
    restrict_vocab : int, optional
        Search the neighbours among the first ``restrict_vocab`` words only.

    Returns
    -------
    Selection

    Raises
    ------
    UnknownWordError
        A word is not in the vocabulary (every missing word is named).
    ParameterError
        A count out of range, an empty list, or more than :data:`MAX_WORDS` words.
    """
    if neighbours:
        return _neighbour_groups(kv, list(neighbours), _check_count("topn", topn, 1), restrict_vocab)
    if words is not None:
        words = list(dict.fromkeys(words))
        _check_known(kv, words)
        rows = [kv.get_index(w) for w in words]
    else:
        start = min(rows_needed(top, skip_top) - top, len(kv))
        rows = list(range(start, min(start + top, len(kv))))
        words = [kv.index_to_key[r] for r in rows]
    if not words:
        raise ParameterError("no word to draw: the vocabulary has no word after --skip-top, or the list is empty")
    if len(words) > MAX_WORDS:
        raise ParameterError(f"{len(words):,} words is more than a map shows ({MAX_WORDS:,})")
    n = len(words)
    return Selection(words, _rows(kv, rows), np.zeros(n, np.int64), [], np.zeros(n, bool))


def _neighbour_groups(kv, heads, topn, restrict_vocab):
    heads = list(dict.fromkeys(heads))
    _check_known(kv, heads)
    answers = kv.most_similar_batch(heads, topn=topn, restrict_vocab=restrict_vocab)
    words, groups, is_head = [], [], []
    seen = set(heads)
    for g, (head, near) in enumerate(zip(heads, answers)):
        words.append(head)
        groups.append(g)
        is_head.append(True)
        for word, _ in near:
            if word not in seen:
                seen.add(word)
                words.append(word)
                groups.append(g)
                is_head.append(False)
    if len(words) > MAX_WORDS:
        raise ParameterError(f"{len(words):,} words is more than a map shows ({MAX_WORDS:,})")
    rows = [kv.get_index(w) for w in words]
    return Selection(words, _rows(kv, rows), np.asarray(groups, np.int64), heads, np.asarray(is_head, bool))


def _rows(kv, rows):
    # the rows asked, copied out of a memory-mapped matrix
    return np.array(kv.vectors[np.asarray(rows, dtype=np.int64)], dtype=np.float32)


def _check_known(kv, words):
    missing = [w for w in words if w not in kv]
    if missing:
        shown = ", ".join(repr(w) for w in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise UnknownWordError(f"not in the vocabulary: {shown}")


def _check_count(name, value, least):
    if not is_integer(value) or value < least:
        raise ParameterError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)


def parse_word_list(value):
    """``--words``: the words of a file (one or more per line) if ``value`` names one, else ``a,b,c``.

    Raises
    ------
    ParameterError
        No word in the list.
    """
    if os.path.isfile(value):
        with open(value, encoding="utf-8") as f:
            words = f.read().split()
    else:
        words = [w.strip() for w in value.split(",")]
    words = [w for w in words if w]
    if not words:
        raise ParameterError(f"--words {value!r}: no word (give a file of words or a,b,c)")
    return words
