"""Helpers shared by the CLI commands: one-line errors, no tracebacks."""
import contextlib
import functools
import logging
import math
import os
import signal
import sys
import threading
import warnings

import click

from w2v.util.console import end_progress_line, write_or_drop
from w2v.errors import W2VError


def one_line_errors(func):
    """Turn library errors into a one-line ``Error: ...`` and exit status 1.

    ``W2VError`` (every error the library raises on purpose), ``OSError``
    (files), ``KeyError`` (a word not in the vocabulary) and ``ValueError``
    become :class:`click.ClickException`; ``KeyboardInterrupt`` (Ctrl-C, and
    SIGTERM or SIGHUP while the command runs) exits 130, and further signals
    are ignored from then on (see :class:`_signals_interrupt`).  Warnings
    (e.g. a checkpoint resumed on another corpus) print as one
    ``warning: ...`` line.  A progress line left open on a terminal is ended
    first, so that each of these lines is a line of its own.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _signals_interrupt() as signals:
            try:
                with warnings.catch_warnings(), _logged_warnings_said():
                    warnings.showwarning = _one_line_warning
                    return func(*args, **kwargs)
            except KeyboardInterrupt:
                signals.stopping()
                say("interrupted")
                raise SystemExit(130) from None
            except BrokenPipeError:
                _quiet_stdout()
                raise SystemExit(1) from None
            except KeyError as exc:
                end_progress_line()
                msg = exc.args[0] if exc.args else str(exc)
                raise click.ClickException(str(msg).splitlines()[0] if str(msg) else "key error") from None
            except (W2VError, OSError, ValueError, MemoryError) as exc:
                end_progress_line()
                text = str(exc) or exc.__class__.__name__
                if isinstance(exc, OSError) and exc.filename and exc.filename not in text:
                    text = f"{exc.filename}: {text}"
                raise click.ClickException(" ".join(text.split("\n"))) from None

    return wrapper


def say(text):
    """``text`` as a line of its own on stderr (after a progress line left open on a terminal).

    A stderr that is gone (the terminal of a run that outlived it, a pipe
    whose reader left) does not stop the command: the line is dropped
    (:func:`w2v.util.console.write_or_drop`).
    """
    end_progress_line()
    write_or_drop(sys.stderr, text + "\n")


def _quiet_stdout():
    """The reader of stdout went away (``w2v info f | head -1``): stop quietly.

    Python's recipe: point stdout at /dev/null so that flushing it at exit
    cannot raise a second ``BrokenPipeError``; the command exits 1 with no
    message (the output the reader wanted is already there).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
        pass


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings reach the CLI's user as one ``warning: ...`` line on stderr (no source line)."""
    say("warning: " + " ".join(str(message).split("\n")))


class _WarningLines(logging.Handler):
    """The library's logged warnings (it prints nothing itself) as ``warning: ...`` lines on stderr."""

    def emit(self, record):
        try:
            _one_line_warning(record.getMessage(), None, None, None)
        except Exception:   # noqa: BLE001 - as logging's own handlers: a bad record must not stop the command
            self.handleError(record)


@contextlib.contextmanager
def _logged_warnings_said():
    """While a command runs, what the library logs at WARNING and above is said as a line of its own."""
    handler = _WarningLines(logging.WARNING)
    logger = logging.getLogger("w2v")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


class _signals_interrupt:
    """While a command runs, Ctrl-C (SIGINT), ``kill`` (SIGTERM) and a closed terminal (SIGHUP)
    raise ``KeyboardInterrupt``; after the first, further ones are ignored.

    ``KeyboardInterrupt`` removes the temporary file of an atomic write and
    stops training cleanly; the default action of SIGTERM and SIGHUP would
    end the process on the spot and leave the temporary file behind.  A
    second signal (Ctrl-C pressed twice) would break off that cleanup
    (waiting for the worker threads, removing a temporary file or folder,
    closing a Dask cluster) or come out of the interpreter's shutdown as a
    traceback: after the first, later ones are ignored until the process
    exits (the command is ending; ``kill -9`` still ends it at once).  So the
    handlers stay set after an interrupted command (also when it runs
    in-process, e.g. under click's ``CliRunner``).

    A signal that is ignored when the command starts stays ignored:
    ``nohup w2v train ...`` must outlive the terminal (nohup ignores SIGHUP),
    and a background job of a script ignores SIGINT.  Outside the main
    thread (where Python cannot set handlers) nothing changes.
    """

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __enter__(self):
        self.saved = {}
        self.stopped = False
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                if signal.getsignal(sig) == signal.SIG_IGN:
                    continue
                self.saved[sig] = signal.signal(sig, self._interrupt)
        return self

    def _interrupt(self, signum, frame):  # pragma: no cover - exercised by subprocess tests
        if self.stopped:
            return
        self.stopped = True
        raise KeyboardInterrupt

    def stopping(self):
        """The command was interrupted and is ending: later signals are ignored."""
        self.stopped = True

    def __exit__(self, *exc):
        if not self.stopped:   # a command that ran to its end: the handlers as they were
            for sig, handler in self.saved.items():
                signal.signal(sig, handler)
        return False


def json_safe(value):
    """``value`` with every NaN or infinite float replaced by None (JSON ``null``).

    ``json.dumps`` writes such floats as bare ``NaN``/``Infinity``, which is
    not JSON (strict parsers reject it); an undefined correlation (e.g. the
    scores of a --pairs file are all equal, an epoch without examples) is
    reported as null instead.
    numpy scalars become Python numbers.
    """
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):   # a numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
