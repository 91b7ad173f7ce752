"""Ranks among neighbours and distances between documents, as gensim's ``KeyedVectors`` gives them.

The methods ``closer_than`` (and its old name ``words_closer_than``),
``rank``, ``most_similar_to_given``, ``relative_cosine_similarity`` and
``wmdistance`` (Word Mover's Distance, which needs the optional POT package:
``pip install 'w2v[wmd]'``) of :class:`w2v.vectors.keyed.KeyedVectors`:
plain functions bound in its class body (their first parameter is ``self``,
see :mod:`w2v.vectors.keyed`).
"""
import logging

import numpy as np

from ..errors import ParameterError, W2VError

logger = logging.getLogger(__name__)

__all__ = ["closer_than", "most_similar_to_given", "rank", "relative_cosine_similarity", "wmdistance",
           "words_closer_than"]


class _MissingPotError(W2VError, ImportError):
    """:meth:`KeyedVectors.wmdistance` without the POT package (also the ``ImportError`` gensim raises)."""


def _emd2():
    """POT's ``ot.emd2`` (the exact earth mover's distance), or a clear error without POT."""
    try:
        from ot import emd2   # optional extra: POT (w2v[wmd])
    except ImportError:
        raise _MissingPotError("wmdistance needs the POT package (Python Optimal Transport): "
                               "pip install 'w2v[wmd]' or pip install POT") from None
    return emd2


def _document(doc, name):
    """``doc`` as a list of tokens; a str is refused (its letters would be the tokens)."""
    if isinstance(doc, (str, bytes, bytearray)):
        raise ParameterError(f"{name} must be a list of words, not a single {type(doc).__name__}")
    try:
        return list(doc)
    except TypeError:
        raise ParameterError(f"{name} must be a list of words, got {type(doc).__name__}") from None


def _weights(doc, words):
    """The normalised bag of words of ``doc`` over ``words`` (each word's share of the tokens)."""
    where = {w: i for i, w in enumerate(words)}
    d = np.zeros(len(words), dtype=np.float64)
    for token in doc:
        d[where[token]] += 1.0
    return d / len(doc)


def _euclidean(v1, v2):
    """The Euclidean distance of every row of ``v1`` to every row of ``v2`` (float64), in bounded memory."""
    cost = np.empty((len(v1), len(v2)), dtype=np.float64)
    block = max(1, (1 << 22) // max(1, v2.size))
    for start in range(0, len(v1), block):
        diff = v1[start:start + block, None, :] - v2[None, :, :]
        cost[start:start + block] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    return cost


def closer_than(self, key1, key2):
    """The words closer (by cosine) to ``key1`` than ``key2`` is, in row order.

    Parameters
    ----------
    key1, key2 : str or int
        Words or row indices.

    Returns
    -------
    list of str
        Neither ``key1`` nor ``key2`` is among them.

    Raises
    ------
    UnknownWordError
        A word is not in the vocabulary.
    """
    all_distances = self.distances(key1)
    i1, i2 = self.get_index(key1), self.get_index(key2)
    closer = np.flatnonzero(all_distances < all_distances[i2])
    return [self.index_to_key[i] for i in closer.tolist() if i != i1]


def words_closer_than(self, word1, word2):
    """gensim's former name of :meth:`closer_than`."""
    return self.closer_than(word1, word2)


def rank(self, key1, key2):
    """The rank of ``key2`` among the neighbours of ``key1`` (1: the nearest).

    Returns
    -------
    int
        ``len(closer_than(key1, key2)) + 1``.
    """
    return len(self.closer_than(key1, key2)) + 1


def most_similar_to_given(self, key1, keys_list):
    """The key of ``keys_list`` most similar (by cosine) to ``key1``; the first of equals.

    Raises
    ------
    ParameterError
        ``keys_list`` is empty (gensim raises a ValueError too).
    UnknownWordError
        A word is not in the vocabulary.
    """
    keys_list = list(keys_list)
    if not keys_list:
        raise ParameterError("keys_list is empty: no key to choose")
    return keys_list[int(np.argmax([self.similarity(key1, key) for key in keys_list]))]


def relative_cosine_similarity(self, wa, wb, topn=10):
    """Cosine of ``wa`` and ``wb`` over the sum of the cosines of ``wa``'s ``topn`` nearest words.

    Leeuwenberg et al., "A Minimally Supervised Approach for Synonym
    Extraction with Word Embeddings" (equation 1).  Above 0.10 (topn=10),
    the two words are more similar than an arbitrary pair.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        ``topn`` gives no neighbour, or ``wa`` has a zero vector.
    UnknownWordError
        A word is not in the vocabulary.
    """
    sims = self.similar_by_word(wa, topn)
    if not len(sims):
        raise ParameterError("cannot compute the relative cosine similarity without any similar word "
                             f"(topn={topn!r})")
    return float(self.similarity(wa, wb)) / sum(sim for _, sim in sims)


def wmdistance(self, document1, document2, norm=True):
    """Word Mover's Distance between two documents (Kusner et al., 2015), with POT.

    The least total distance the words of ``document1`` travel to become
    those of ``document2``, each document a bag of its known words
    weighted by their share of its tokens, the cost of a move the
    Euclidean distance between the two words' vectors.

    Parameters
    ----------
    document1, document2 : list of str
        Tokens; unknown ones are dropped (logged).
    norm : bool, optional
        Use unit vectors.

    Returns
    -------
    float
        ``inf`` when a document has no known word; 0.0 when every word of
        one is at distance 0 from every word of the other (gensim returns
        ``inf`` then, unless both hold one and the same word).

    Raises
    ------
    ImportError
        POT is not installed (also a :class:`w2v.W2VError`).
    ParameterError
        A document is a str, not a list of words.
    """
    emd2 = _emd2()
    doc1, doc2 = _document(document1, "document1"), _document(document2, "document2")
    known1 = [t for t in doc1 if self.has_index_for(t)]
    known2 = [t for t in doc2 if self.has_index_for(t)]
    if len(known1) < len(doc1) or len(known2) < len(doc2):
        logger.info("removed %d and %d unknown words from document 1 and 2", len(doc1) - len(known1),
                    len(doc2) - len(known2))
    if not known1 or not known2:
        logger.warning("at least one of the documents has no word of the vocabulary")
        return float("inf")
    words1, words2 = list(dict.fromkeys(known1)), list(dict.fromkeys(known2))
    v1 = np.array([self.get_vector(w, norm=norm) for w in words1], dtype=np.float64)
    v2 = np.array([self.get_vector(w, norm=norm) for w in words2], dtype=np.float64)
    cost = _euclidean(v1, v2)
    if not cost.any():
        return 0.0
    return float(emd2(_weights(known1, words1), _weights(known2, words2), cost))
