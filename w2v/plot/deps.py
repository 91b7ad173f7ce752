"""The optional packages of the pictures, and figures that need no global state.

matplotlib draws the PNG and SVG pictures (``pip install 'w2v[plot]'``);
without it, :func:`require_matplotlib` raises :class:`MissingExtraError`,
one line that names the extra.  The HTML word map needs only NumPy.
Figures are made with :class:`matplotlib.figure.Figure` and an Agg canvas,
not with ``pyplot``: nothing is left open in a global list, and no display
backend is chosen for the caller (a notebook shows the Figure returned).
"""
import os

from ..util.atomic import atomic_write
from ..errors import ParameterError, W2VError

PLOT_EXTRA = "pip install 'w2v[plot]'"
FORMATS = ("png", "svg", "pdf")   # what save_figure writes (the suffix of its path, or format=)


class MissingExtraError(W2VError, ImportError):
    """An optional package that a picture needs is not installed; the message names the extra."""


def require_matplotlib():
    """Import matplotlib, or raise :class:`MissingExtraError` with the install hint.

    Returns
    -------
    module
        ``matplotlib``.
    """
    try:
        # optional extra: matplotlib (w2v[plot]); its Agg backend is imported to check it too
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401  (optional extra: matplotlib)
    except ImportError:
        raise MissingExtraError(f"pictures need matplotlib: {PLOT_EXTRA}") from None
    return matplotlib


def check_size(size):
    """``size`` as ``(width, height)`` in pixels, each from 100 to 10,000.

    Parameters
    ----------
    size : tuple of int or str
        ``(1600, 1200)`` or ``"1600x1200"``.

    Raises
    ------
    ParameterError
        Not two integers in that range.
    """
    given = size
    if isinstance(size, str):
        try:
            size = tuple(int(p) for p in size.lower().split("x"))
        except ValueError:
            size = ()
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ParameterError(f"size must be WIDTHxHEIGHT in pixels, e.g. 1600x1200 (got {given!r})") from None
    if not (100 <= width <= 10_000 and 100 <= height <= 10_000):
        raise ParameterError(f"size must be from 100 to 10000 pixels each way (got {width}x{height})")
    return width, height


def new_figure(size, dpi=100):
    """A matplotlib Figure of ``size`` pixels (``(width, height)``) at ``dpi``, on an Agg canvas."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg   # optional extra: matplotlib
    from matplotlib.figure import Figure   # optional extra: matplotlib

    width, height = check_size(size)
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def format_of(path, fmt=None, allowed=FORMATS):
    """The picture format: ``fmt`` if given, else the suffix of ``path`` (``png`` when it has none).

    Raises
    ------
    ParameterError
        A format that is not in ``allowed``.
    """
    if fmt is None:
        suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
        fmt = suffix or "png"
    fmt = str(fmt).lower()
    if fmt not in allowed:
        raise ParameterError(f"{path}: cannot write the format {fmt!r}; use {', '.join(allowed)}")
    return fmt


def save_figure(fig, path, fmt=None):
    """Write ``fig`` to ``path`` atomically, at the Figure's size in pixels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or os.PathLike
    fmt : str, optional
        ``png``, ``svg`` or ``pdf``; by default the suffix of ``path``.

    Raises
    ------
    ParameterError
        An unknown format.
    OutputError
        ``path`` cannot be written.
    """
    fmt = format_of(path, fmt)
    metadata = {"Software": None} if fmt == "png" else {"Date": None} if fmt == "svg" else None
    with atomic_write(os.fspath(path), "wb") as fh:
        fig.savefig(fh, format=fmt, dpi=fig.dpi, metadata=metadata)
