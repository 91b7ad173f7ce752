"""Finding words and their vectors: the lookup methods of :class:`w2v.vectors.keyed.KeyedVectors`.

Plain functions, bound as methods in the class body of
:class:`~w2v.vectors.keyed.KeyedVectors` (their first parameter is ``self``,
see :mod:`w2v.vectors.keyed`).  They read the words, the vectors and the
norms from ``self.store``.
"""

import numpy as np

from ..util.checks import is_integer
from ..errors import ParameterError, UnknownWordError
from .terms import KEY_TYPES, bad_key, is_key

__all__ = ["__contains__", "__getitem__", "encode", "get_index", "get_vector", "has_index_for", "lookup"]

# A vocabulary loaded without its word index (native format) answers the first few
# distinct word lookups with a linear scan (C speed, ~15 ms per million words) instead of
# building the whole dict (~0.3-1 s per million words): a one-off query pays no index.
_SCAN_LOOKUPS = 8
_SCAN_MIN_WORDS = 50_000


def _find(store, key):
    """Row of the word ``key`` (a str) in ``store``, or -1; see ``_SCAN_LOOKUPS``."""
    scans = _SCAN_LOOKUPS if len(store.index_to_key) >= _SCAN_MIN_WORDS else 0
    return store.find(key, scans=scans)


def __contains__(self, key):
    """Whether ``key`` is a word; False for anything not a str (``['a'] in kv`` included)."""
    return isinstance(key, str) and key in self.key_to_index


def has_index_for(self, key):
    """Whether ``key`` is a word of the vocabulary or a valid row index (False for other types)."""
    return is_key(key) and self.get_index(key, -1) >= 0


def get_index(self, key, default=None):
    """Row index of ``key``.

    Parameters
    ----------
    key : str or int
        A word, or an integer row index (returned unchanged if in range).
    default : int, optional
        Returned when ``key`` is unknown; if None, raise.

    Returns
    -------
    int

    Raises
    ------
    UnknownWordError
        ``key`` is not in the vocabulary and no ``default`` was given.
    ParameterError
        ``key`` is neither a str nor an integer (a bool, float, None, ...).
    """
    if isinstance(key, str):
        val = _find(self.store, key)
        if val >= 0:
            return val
    elif not is_key(key):
        raise bad_key(key)
    elif 0 <= key < len(self.index_to_key):
        return int(key)
    if default is not None:
        return default
    raise UnknownWordError.for_word(key)


def get_vector(self, key, norm=False):
    """Vector of one word.

    Parameters
    ----------
    key : str or int
        The word (or its row index).
    norm : bool, optional
        Return the unit-length vector.

    Returns
    -------
    numpy.ndarray
        Read-only 1-D array of the vectors' type (float32 unless asked otherwise).

    Raises
    ------
    UnknownWordError
        The word is not in the vocabulary.
    ParameterError
        ``key`` is neither a str nor an integer.
    """
    index = self.get_index(key)
    store = self.store
    if norm:
        self.fill_norms()   # a zero row is divided by 1: the zero vector
        result = (store.vectors[index] / store.divisors[index]).astype(store.dtype, copy=False)
    else:
        result = store.vectors[index]
    result = result.view()
    result.setflags(write=False)
    return result


def __getitem__(self, key_or_keys):
    """The vector of a word or row index, or the matrix of a list of them.

    Raises
    ------
    UnknownWordError
        A word is not in the vocabulary.
    ParameterError
        A key is neither a str nor an integer (e.g. ``kv[1.5]``, ``kv[None]``).
    """
    if isinstance(key_or_keys, KEY_TYPES):
        return self.get_vector(key_or_keys)
    if isinstance(key_or_keys, (bytes, bytearray)):
        raise bad_key(key_or_keys)
    try:
        keys = list(key_or_keys)
    except TypeError:
        raise bad_key(key_or_keys) from None
    idx = np.array([self.get_index(k) for k in keys], dtype=np.intp)
    return self.store.vectors[idx].reshape(len(idx), self.vector_size)


def lookup(self, ids):
    """Gather the vectors of integer ids of any shape.

    Parameters
    ----------
    ids : array_like of int
        Row indices, any shape.

    Returns
    -------
    numpy.ndarray
        Array of shape ``ids.shape + (dim,)``, of the vectors' type.

    Raises
    ------
    ParameterError
        ``ids`` are not integers, or one is negative or ``>= len(self)``.
    """
    arr = np.asarray(ids)
    if arr.size == 0:
        return np.empty(arr.shape + (self.vector_size,), dtype=self.store.dtype)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(f"ids must be integers, got dtype {arr.dtype}")
    lo, hi = int(arr.min()), int(arr.max())
    n = len(self)
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        raise ParameterError(f"id {bad} out of range: the vocabulary has {n} words (valid ids 0..{n - 1})")
    return np.take(self.store.vectors, arr.astype(np.intp, copy=False), axis=0)


def encode(self, tokens, unknown="error"):
    """Map words to row ids.

    Parameters
    ----------
    tokens : iterable of str
        The words.
    unknown : {'error'} or int, optional
        ``'error'`` raises UnknownWordError (a KeyError) on the first unknown word; an integer
        (e.g. -1) is used as the id of unknown words.

    Returns
    -------
    numpy.ndarray
        int64 array with one id per token.

    Raises
    ------
    UnknownWordError
        A word is unknown and ``unknown='error'``.
    ParameterError
        ``tokens`` is a single str, or ``unknown`` is neither ``'error'``
        nor an integer.
    """
    if isinstance(tokens, str):
        raise ParameterError("tokens must be a sequence of str, not a single str")
    if isinstance(unknown, str):
        if unknown != "error":
            raise ParameterError(f"unknown must be 'error' or an integer, got {unknown!r}")
        k2i = self.key_to_index
        out = []
        for tok in tokens:
            i = k2i.get(tok)
            if i is None:
                raise UnknownWordError.for_word(tok)
            out.append(i)
        return np.array(out, dtype=np.int64)
    if not is_integer(unknown):
        raise ParameterError(f"unknown must be 'error' or an integer, got {unknown!r}")
    get = self.key_to_index.get
    unk = int(unknown)
    return np.array([get(tok, unk) for tok in tokens], dtype=np.int64)
