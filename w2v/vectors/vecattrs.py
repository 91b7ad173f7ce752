"""Per-word attributes of :class:`w2v.vectors.keyed.KeyedVectors` (gensim's "vecattrs"), and the order they give.

Each attribute is one NumPy array in ``expandos`` with a value per word;
``'count'`` is the corpus frequency, also :attr:`~w2v.vectors.keyed.KeyedVectors.counts`.
The methods ``allocate_vecattrs``, ``get_vecattr``, ``set_vecattr``,
``sort_by_descending_frequency`` and ``vectors_for_all`` are plain functions
bound in the class body of :class:`~w2v.vectors.keyed.KeyedVectors` (their
first parameter is ``self``, see :mod:`w2v.vectors.keyed`); they change the
attributes through ``self.store``.
"""
import numpy as np

from ..errors import ParameterError
from .terms import bad_key

__all__ = ["allocate_vecattrs", "get_vecattr", "made_up_counts", "set_vecattr", "sort_by_descending_frequency",
           "vectors_for_all"]


def made_up_counts(n, records):
    """gensim's counts of ``n`` words that come without any: ``records - row``, descending.

    gensim's ``load_word2vec_format`` (without ``fvocab``) and
    ``vectors_for_all`` give the word of row ``i`` the count
    ``records - i``, where ``records`` is the number of records read
    (duplicates included, which gensim counts) or of words kept.

    Returns
    -------
    numpy.ndarray
        int64, ``n`` values.
    """
    return records - np.arange(n, dtype=np.int64)


class _TypeConflictError(ParameterError, TypeError):
    """A value of another type than an attribute's array holds.

    A :class:`ParameterError` that is also the ``TypeError`` gensim raises there.
    """


class _NoAttributeError(ParameterError, KeyError):
    """An attribute no word has.

    A :class:`ParameterError` that is also the ``KeyError`` gensim raises there.
    """

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _dtype_of(t):
    """The array dtype of values of type ``t``, as gensim chooses it (int: int64; str: object)."""
    if t is int:
        return np.dtype(np.int64)
    if t is str:
        return np.dtype(object)   # not numpy's fixed-width strings, which take too much memory
    try:
        return np.dtype(t)
    except TypeError:
        return np.dtype(object)


def allocate_vecattrs(self, attrs=None, types=None):
    """Make sure an array of the right type and length exists for each attribute.

    Parameters
    ----------
    attrs : list of str, optional
        Attribute names; by default every existing one, which is then
        grown (zeros) or cut to one value per word.
    types : list of type, optional
        One type per name (``int`` is stored as int64, ``str`` as object).

    Raises
    ------
    ParameterError
        ``types`` is missing or of another length than ``attrs``, or
        ``'count'`` would not hold integers.
    TypeError
        An existing attribute holds another type (also a ParameterError).
    """
    if attrs is None:
        attrs = list(self.expandos)
        types = [self.expandos[a].dtype for a in attrs]
    else:
        attrs = list(attrs)
        if types is None or len(list(types)) != len(attrs):
            raise ParameterError(f"types must give one type per attribute of {attrs!r}, got {types!r}")
    n = len(self.index_to_key)
    for attr, t in zip(attrs, list(types)):
        dtype = _dtype_of(t)
        prev = self.expandos.get(attr)
        if prev is None:
            if attr == "count" and dtype.kind not in "iu":
                raise ParameterError(f"the 'count' attribute holds integers, got {dtype}")
            self.store.set_attribute(attr, np.zeros(n, dtype=dtype))
            continue
        if not np.issubdtype(dtype, prev.dtype):
            raise _TypeConflictError(f"cannot store {dtype} values in attribute {attr!r}, which holds {prev.dtype}")
        self.store.fit_attribute(attr)


def set_vecattr(self, key, attr, val):
    """Set attribute ``attr`` of word ``key`` to ``val``.

    The attribute's array is created at the first value (zeros for the
    other words), with the type of that value.

    Raises
    ------
    UnknownWordError
        ``key`` is not in the vocabulary.
    TypeError
        ``val`` has another type than the attribute holds (also a ParameterError).
    """
    index = self.get_index(key)
    self.allocate_vecattrs(attrs=[attr], types=[type(val)])
    self.store.set_attribute_values(attr, index, val)


def get_vecattr(self, key, attr):
    """The value of attribute ``attr`` of word ``key`` (a NumPy scalar for numbers).

    Raises
    ------
    UnknownWordError
        ``key`` is not in the vocabulary.
    KeyError
        No word has attribute ``attr`` (also a ParameterError).  Vectors
        loaded by :meth:`load_word2vec_format` have a ``'count'`` (from
        ``fvocab``, else gensim's made-up descending counts); vectors
        loaded by :func:`w2v.load` from a word2vec file have none.
    """
    index = self.get_index(key)
    values = self.expandos.get(attr)
    if values is None:
        raise _NoAttributeError(f"no attribute {attr!r}: these vectors have only {sorted(self.expandos)}")
    return values[index]


def sort_by_descending_frequency(self):
    """Reorder the words by descending count, the most frequent first (rows, attributes and index).

    Words of equal count keep their order (gensim puts them in reverse
    row order).  The cached norms are dropped.

    Raises
    ------
    KeyError
        The vectors have no counts (also a ParameterError).
    """
    if not len(self.index_to_key):
        return
    counts = self.expandos.get("count")
    if counts is None:
        raise _NoAttributeError("no attribute 'count': these vectors have no word counts to sort by")
    n = len(counts)
    order = (n - 1) - np.argsort(counts[::-1], kind="stable")[::-1]   # descending, ties in row order
    if np.array_equal(order, np.arange(n)):
        return
    self.store.reorder(order)
    lockf = getattr(self, "vectors_lockf", None)
    if lockf is not None and len(lockf) == n:
        self.vectors_lockf = lockf[order]


def vectors_for_all(self, keys, allow_inference=True, copy_vecattrs=False):
    """New vectors holding the words of ``keys`` that these vectors know, in the order of ``keys``.

    Parameters
    ----------
    keys : iterable of str
        Words; repeats and unknown words are skipped.
    allow_inference : bool, optional
        gensim's subclasses (FastText) make up vectors of unknown words
        when True; whole-word vectors have none to make, so both values
        give the same answer.
    copy_vecattrs : bool, optional
        Copy every attribute (:attr:`expandos`, the counts included).

    Returns
    -------
    KeyedVectors
        Of the same ``dtype``.  As gensim's, its words have made-up
        descending counts (``len(words) - row``: the count of a word
        loaded by :meth:`load_word2vec_format` without ``fvocab``), which
        ``copy_vecattrs`` replaces with these vectors' counts when they
        have some.

    Raises
    ------
    ParameterError
        A key is not a str.
    """
    words, seen = [], set()
    k2i = self.key_to_index
    for key in keys:
        if not isinstance(key, str):
            raise bad_key(key) if not isinstance(key, int) else ParameterError(
                f"keys must be words (str), got the int {key!r}")
        if key not in seen:
            seen.add(key)
            if key in k2i:
                words.append(key)
    rows = np.array([k2i[w] for w in words], dtype=np.intp)
    kv = type(self).from_trusted(words, np.ascontiguousarray(self.store.vectors[rows]), counts=made_up_counts(
        len(words), len(words)), settings=self.settings, dtype=self.store.dtype)
    if copy_vecattrs:
        for attr, values in self.expandos.items():
            kv.store.set_attribute(attr, values[rows])
    return kv
