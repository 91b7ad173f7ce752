"""Which format vectors written to a path take: the one rule of ``w2v.save``, ``w2v train -o`` and ``w2v convert``.

The format follows the name, less a compression suffix (``.gz``, ``.bz2``,
``.xz``, ``.lzma``): ``.bin`` is word2vec binary, ``.txt`` and ``.vec`` are
word2vec text.  A name with a compression suffix but neither of those
(``vectors.gz``) is word2vec binary, since a folder cannot be compressed; so
is an existing path that is neither a file nor a folder (``/dev/stdout``, a
named pipe), which is written through as a stream.  Any other name is a
native folder.  A format given explicitly (``--to``, ``--text``,
``format=``) overrides the name.
"""
import os
import stat

from ..errors import ParameterError
from ..util.opener import compression_for_suffix, strip_compression_suffix

__all__ = ["FORMATS", "format_for_path"]

#: the formats vectors are written in: word2vec binary, word2vec text, a native folder
FORMATS = ("bin", "text", "native")
_ALIASES = {"binary": "bin", "txt": "text", "vec": "text"}


def format_for_path(path, format=None):
    """The format of vectors written to ``path``: ``format`` if given, else the one ``path`` names.

    Parameters
    ----------
    path : str or os.PathLike
    format : {'bin', 'text', 'native'}, optional
        An explicit choice; ``'binary'``, ``'txt'`` and ``'vec'`` are taken as
        ``'bin'``, ``'text'`` and ``'text'``.

    Returns
    -------
    str
        ``'bin'``, ``'text'`` or ``'native'``.

    Raises
    ------
    ParameterError
        An unknown ``format``.
    """
    if format is not None:
        chosen = _ALIASES.get(format, format)
        if chosen not in FORMATS:
            raise ParameterError(f"unknown format {format!r}; expected 'bin', 'text' or 'native'")
        return chosen
    path = os.fspath(path)
    name = strip_compression_suffix(path).lower()
    if name.endswith(".bin"):
        return "bin"
    if name.endswith((".txt", ".vec")):
        return "text"
    if compression_for_suffix(path) is not None or _is_stream(path):
        return "bin"
    return "native"


def _is_stream(path):
    """Whether ``path`` exists and is neither a regular file nor a folder (a device, a named pipe)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
