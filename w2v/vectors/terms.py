"""What a query term may be: a word (str), a row index (int) or a vector."""
import reprlib

import numpy as np

from ..errors import ParameterError

__all__ = ["KEY_TYPES", "bad_key", "check_vector", "ensure_list", "is_key"]

#: the types of a key: a word or a row index (``bool`` excepted, see :func:`is_key`)
KEY_TYPES = (str, int, np.integer)


def is_key(key):
    """Whether ``key`` is a word (str) or a row index (an integer, not a bool)."""
    return isinstance(key, KEY_TYPES) and not isinstance(key, bool)


def bad_key(key):
    """The :class:`ParameterError` for a key that is neither a word nor a row index."""
    return ParameterError(
        f"a key must be a word (str) or a row index (int), got {type(key).__name__} {reprlib.repr(key)}"
    )


def check_vector(vector, dim, what="vector"):
    """``vector`` as an array, checked to be numeric, of shape ``(dim,)`` and finite.

    Parameters
    ----------
    vector : array_like
    dim : int
    what : str, optional
        What the message calls the vector.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ParameterError
        Another shape, a non-numeric dtype, or NaN or infinity.
    """
    arr = np.asarray(vector)
    if arr.shape != (dim,) or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ParameterError(f"{what} must be a numeric vector of shape ({dim},), got {arr.dtype} {arr.shape}")
    if not np.isfinite(arr).all():
        raise ParameterError(f"{what} is not finite: it holds NaN or infinity")
    return arr


def ensure_list(value):
    """Wrap a single key or vector in a list (gensim's convention)."""
    if value is None:
        return []
    if isinstance(value, KEY_TYPES) or (isinstance(value, np.ndarray) and value.ndim == 1):
        return [value]
    if isinstance(value, (bytes, bytearray)):
        raise bad_key(value)
    try:
        return list(value)
    except TypeError:
        raise ParameterError(
            f"expected a word, a vector or a list of them, got {type(value).__name__} {reprlib.repr(value)}"
        ) from None

