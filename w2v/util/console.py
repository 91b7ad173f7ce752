"""Lines for the user on stderr: progress left open on a terminal, and a stream that went away.

Light on purpose (no NumPy, no Numba): the CLI imports it before anything
else.  :class:`w2v.training.progress.Progress` writes through :func:`write_or_drop` and
marks its in-place line with :func:`line_left_open`; the CLI's messages call
:func:`end_progress_line` first.
"""
import io
import os

#: the stream (a terminal) whose last line is an unfinished progress line
_open_line = [None]


def line_left_open(stream, is_open):
    """Record that ``stream``'s last line is (``is_open``) or is no longer an unfinished progress line."""
    if is_open:
        _open_line[0] = stream
    elif _open_line[0] is stream:
        _open_line[0] = None


def end_progress_line():
    """End a progress line left open on a terminal, so that what follows starts a line of its own.

    On a terminal, progress is redrawn in place (``"\\r" + line``) with no
    newline; text written next (the CLI's "interrupted", an error, a
    warning) would run on after it.  The line stays visible.
    """
    stream, _open_line[0] = _open_line[0], None
    if stream is not None:
        write_or_drop(stream, "\n")


def write_or_drop(stream, text):
    """Write ``text`` to ``stream`` and flush; return False if the stream is gone.

    A terminal closed under a run that outlives it (``setsid``, a disowned
    job: no SIGHUP, but every write fails with EIO) or a reader of a pipe
    that went away must not stop the command: progress and notes are not its
    result.  The stream's descriptor is pointed at ``/dev/null`` (what is
    still buffered, and the interpreter's flush at exit, then go nowhere
    instead of failing again).
    """
    try:
        stream.write(text)
        stream.flush()
        return True
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            pass
        return False
