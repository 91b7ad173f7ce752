"""w2v's former keyword names, kept working beside gensim's.

Where a method of :class:`w2v.vectors.keyed.KeyedVectors` takes gensim's parameter
names (``fname``, ``pairs``, ``analogies``...), the names w2v used before stay
accepted as keyword aliases: :func:`renamed` maps them, and the method's
signature (what :func:`inspect.signature` shows) is gensim's.
"""
import functools
import inspect

from ..errors import ParameterError

__all__ = ["renamed"]


def renamed(**old_to_new):
    """Decorate a function so that keyword ``old`` is taken as ``new`` for each ``old=new`` given.

    Parameters
    ----------
    **old_to_new : str
        The former name of each parameter, mapped to its current name.

    Returns
    -------
    callable
        The decorator.  The function it returns has the signature of the
        decorated one (``__wrapped__``); a call that gives both names of one
        parameter (by keyword or by position) raises :class:`ParameterError`.
    """

    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                try:
                    positional = signature.bind_partial(*args).arguments
                except TypeError:      # too many positional arguments: the call itself says so
                    positional = {}
                given = new in kwargs or new in positional
                if given:
                    raise ParameterError(f"{fn.__name__}: give {new} or {old} (its former name), not both")
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper

    return decorate
