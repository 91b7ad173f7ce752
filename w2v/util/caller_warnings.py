"""Warnings that point at the user's line, not at the library's internals.

:func:`warnings.warn` attributes a warning to the frame ``stacklevel`` calls
up, a count every caller in the library would have to keep right as calls
are added between the user's line and the warning (a ``renamed`` wrapper, a
reader, a runner).  :func:`warn` counts instead: it attributes the warning to
the first frame, at or above ``stacklevel``, whose code lies outside the w2v
package, so that ``python -W error``, the filters of :mod:`warnings` and
pytest name the user's file and line.
"""
import os
import sys
import warnings

__all__ = ["warn"]

#: the folder of the w2v package, with a trailing separator
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _in_package(frame):
    return os.path.abspath(frame.f_code.co_filename).startswith(PACKAGE_DIR)


def warn(message, category=UserWarning, stacklevel=1):
    """``warnings.warn(message, category)``, attributed to the first caller outside the w2v package.

    Parameters
    ----------
    message : str
    category : type, optional
        A subclass of :class:`Warning`.
    stacklevel : int, optional
        As :func:`warnings.warn`'s, counted from the function that calls
        this one (1: that function): where the search for a frame outside
        the package starts.  Where no frame outside the package calls it (a
        thread of the library's own), the warning names that frame.
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and level < stacklevel:
        frame, level = frame.f_back, level + 1
    while frame is not None and _in_package(frame):
        frame, level = frame.f_back, level + 1
    if frame is None:
        level = stacklevel
    warnings.warn(message, category, stacklevel=level + 1)   # + 1: this function's own frame
