"""Type checks of user-given values, shared by the settings and the public functions.

Python's ``bool`` is an ``int``: ``True`` passed as a count is almost always a
mistake, so it is refused wherever an integer or a number is expected.
NumPy's scalars (``np.int64(5)``, ``np.float32(0.5)``) are accepted.
"""
import math
import numbers

from ..errors import ParameterError

__all__ = ["is_integer", "is_real", "is_finite_real", "require"]


def is_integer(value):
    """Whether ``value`` is an integer (Python's or NumPy's) and not a ``bool``."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value):
    """Whether ``value`` is a real number (an integer or a float, Python's or NumPy's) and not a ``bool``."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_finite_real(value):
    """Whether ``value`` is a real number that is neither infinite nor NaN (see :func:`is_real`)."""
    return is_real(value) and math.isfinite(value)


def require(condition, message):
    """Raise :class:`~w2v.errors.ParameterError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise ParameterError(message)
