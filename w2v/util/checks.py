"""Type checks of user-given values, shared by the settings and the public functions.

Python's ``bool`` is an ``int``: ``True`` passed as a count is almost always a
mistake, so it is refused wherever an integer or a number is expected.
NumPy's scalars (``np.int64(5)``, ``np.float32(0.5)``) are accepted.

The constraints (:class:`Integer`, :class:`Real`, :class:`OneOf`,
:class:`Boolean`, :class:`NoneOr`, :class:`ZeroOr`) declare once what a value
must be; ``problem(value)`` says what is wrong with a value, as the words
that follow its name in an error (``"must be an integer >= 1 (got 0)"``), or
returns ``None``.  The caller names the value: a setting's field in the
library, its option on the command line.
"""
import dataclasses
import math
import numbers

import numpy as np

from ..errors import ParameterError

__all__ = ["is_integer", "is_real", "is_finite_real", "require", "Integer", "Real", "OneOf", "Boolean", "NoneOr",
           "ZeroOr"]


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


@dataclasses.dataclass(frozen=True)
class Integer:
    """An integer (not a ``bool``) from ``lo`` up, and at most ``hi`` where given, in ``unit`` where named."""

    lo: int
    hi: int = None
    unit: str = ""

    def problem(self, value):
        """What is wrong with ``value``, or ``None``."""
        unit = f" {self.unit}" if self.unit else ""
        if not (is_integer(value) and value >= self.lo):
            return f"must be an integer >= {self.lo}{unit} (got {value!r})"
        if self.hi is not None and value > self.hi:
            return f"must be <= {self.hi}{unit} (got {value!r})"
        return None


@dataclasses.dataclass(frozen=True)
class Real:
    """A finite real number (not a ``bool``), above ``above`` or from ``at_least`` up where given."""

    above: float = None
    at_least: float = None

    def problem(self, value):
        """What is wrong with ``value``, or ``None``."""
        if not is_finite_real(value):
            return f"must be a finite number (got {value!r})"
        if self.above is not None and not value > self.above:
            return f"must be > {self.above} (got {value!r})"
        if self.at_least is not None and value < self.at_least:
            return f"must be >= {self.at_least} (got {value!r})"
        return None


@dataclasses.dataclass(frozen=True)
class OneOf:
    """One of the strings ``choices``."""

    choices: tuple

    def problem(self, value):
        """What is wrong with ``value``, or ``None``."""
        if isinstance(value, str) and value in self.choices:
            return None
        if len(self.choices) == 2:
            return f"must be {self.choices[0]!r} or {self.choices[1]!r}, not {value!r}"
        return f"must be one of {', '.join(self.choices)}"


@dataclasses.dataclass(frozen=True)
class Boolean:
    """A real ``bool`` (or NumPy's): a model file's ``"false"``, a string, must not mean True."""

    def problem(self, value):
        """What is wrong with ``value``, or ``None``."""
        return None if isinstance(value, (bool, np.bool_)) else f"must be True or False (got {value!r})"


@dataclasses.dataclass(frozen=True)
class NoneOr:
    """``None``, or a value ``inner`` accepts."""

    inner: object

    def problem(self, value):
        """What is wrong with ``value``, or ``None``."""
        return None if value is None else self.inner.problem(value)


@dataclasses.dataclass(frozen=True)
class ZeroOr:
    """0, which means ``meaning``, or a value of ``inner`` (an :class:`Integer` with both bounds)."""

    meaning: str
    inner: Integer

    def problem(self, value):
        """What is wrong with ``value``, or ``None``."""
        if (is_integer(value) and value == 0) or self.inner.problem(value) is None:
            return None
        return f"must be 0 ({self.meaning}) or from {self.inner.lo} to {self.inner.hi} (got {value!r})"
