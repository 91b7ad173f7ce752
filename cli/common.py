"""Helpers shared by the CLI commands: one-line errors, no tracebacks."""
import functools

import click

from w2v.errors import W2VError


def one_line_errors(func):
    """Turn library errors into a one-line ``Error: ...`` and exit status 1.

    ``W2VError`` (every error the library raises on purpose), ``OSError``
    (files), ``KeyError`` (a word not in the vocabulary) and ``ValueError``
    become :class:`click.ClickException`; ``KeyboardInterrupt`` exits 130.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            raise SystemExit(130)
        except KeyError as exc:
            msg = exc.args[0] if exc.args else str(exc)
            raise click.ClickException(str(msg).splitlines()[0] if str(msg) else "key error")
        except (W2VError, OSError, ValueError, MemoryError) as exc:
            text = str(exc) or exc.__class__.__name__
            if isinstance(exc, OSError) and exc.filename and exc.filename not in text:
                text = f"{exc.filename}: {text}"
            raise click.ClickException(" ".join(text.split("\n")))

    return wrapper
