"""Pictures: ``plot`` (a word map), ``plot-run`` (training curves of a report), ``export --projector``."""
import json
import os

import click

from w2v.errors import FormatError, ParameterError
from w2v.util.atomic import atomic_write_text

from .common import one_line_errors, say
from .train import check_writable

_CTX = {"help_option_names": ["-h", "--help"]}


def _exists(path):
    if not os.path.exists(path):
        raise click.ClickException(f"{path}: no such file or directory")


def check_picture_output(path, fmt, formats):
    """The format of the picture ``path`` (``fmt``, else its suffix); fail early where it cannot be
    made: an unknown format, matplotlib missing for a drawn format, an unwritable path."""
    from w2v.plot.deps import format_of, require_matplotlib   # start-up: loads scipy.linalg (+0.3 s)

    fmt = format_of(path, fmt, formats)
    if fmt != "html":
        require_matplotlib()
    check_writable(path)
    return fmt


def _check_method(method):
    from w2v.plot import MissingExtraError, installed_methods   # start-up: loads scipy.linalg (+0.3 s)

    if method not in ("auto", *installed_methods()):
        package = {"tsne": "openTSNE or scikit-learn: pip install 'w2v[plot]'",
                   "umap": "umap-learn: pip install 'w2v[umap]'"}[method]
        raise MissingExtraError(f"--method {method} needs {package}")


@click.command("plot", context_settings=_CTX)
@click.argument("vectors", type=click.Path())
@click.argument("heads", nargs=-1, metavar="[WORD]...")
@click.option("-o", "--output", default="map.png", show_default=True,
              help="The picture: .png, .svg or .html (an interactive page).")
@click.option("--format", "fmt", type=click.Choice(["png", "svg", "html"]), default=None,
              help="png, svg or html [default: the suffix of -o].")
@click.option("--top", type=click.IntRange(min=1), default=300, show_default=True,
              help="Draw the N most frequent words (after --skip-top).")
@click.option("--skip-top", type=click.IntRange(min=0), default=0, show_default=True,
              help="Leave out the K most frequent words first (stop words).")
@click.option("--words", default=None, metavar="FILE|a,b,c",
              help="Draw these words: a file of words, or a comma-separated list.")
@click.option("--neighbours", "--neighbors", "neighbours", is_flag=True,
              help="Draw each WORD with its --topn nearest words, a colour per group.")
@click.option("--topn", type=click.IntRange(min=1), default=10, show_default=True,
              help="With --neighbours: the nearest words of each WORD.")
@click.option("--method", type=click.Choice(["auto", "pca", "tsne", "umap"]), default="auto", show_default=True,
              help="The projection to 2-D; auto: t-SNE, else UMAP, else PCA, the first installed.")
@click.option("--size", default="1600x1200", show_default=True, help="WIDTHxHEIGHT in pixels (png, svg).")
@click.option("--title", default=None, help="The title [default: which words and which method].")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of t-SNE and UMAP.")
@click.option("--restrict-vocab", type=click.IntRange(min=1), default=None,
              help="Search nearest words (--neighbours, the html page's hovers) among the N most frequent "
                   "words only [default: all].")
@one_line_errors
def plot(vectors, heads, output, fmt, top, skip_top, words, neighbours, topn, method, size, title, seed,
         restrict_vocab):
    """Draw a map of the words of VECTORS (a vectors file or model folder) in two dimensions.

    By default the 300 most frequent words; --words a,b,c (or a file) draws
    given words, and --neighbours WORD... draws each WORD with its nearest
    words.  Labels never overlap.  The html format is one self-contained
    page: scroll to zoom, drag to pan, hover a point for its neighbours.
    Only the rows drawn are read for a png or svg of the most frequent words.
    """
    # start-up: loads scipy.linalg (+0.3 s)
    from w2v.plot import check_size, load_rows, parse_word_list, rows_needed

    if heads and not neighbours:
        raise click.UsageError("words after VECTORS need --neighbours (to draw given words, use --words a,b,c)")
    if neighbours and not heads:
        raise click.UsageError("--neighbours needs words after VECTORS: w2v plot VECTORS --neighbours king queen")
    if neighbours and words:
        raise click.UsageError("give --neighbours WORD... or --words, not both")
    fmt = check_picture_output(output, fmt, ("png", "svg", "html"))
    _check_method(method)
    size = check_size(size)
    word_list = parse_word_list(words) if words is not None else None
    _exists(vectors)
    rows = rows_needed(top, skip_top, word_list, list(heads))
    if fmt == "html" and rows is not None:   # the hovers search the --restrict-vocab first words
        rows = None if restrict_vocab is None else max(rows, restrict_vocab)
    kv = load_rows(vectors, rows)
    options = dict(top=top, skip_top=skip_top, words=word_list, neighbours=list(heads) or None, topn=topn,
                   method=method, title=title, seed=seed, restrict_vocab=restrict_vocab)
    if fmt == "html":
        from w2v.plot import word_map_html   # start-up: loads scipy.linalg (+0.3 s)
        atomic_write_text(output, word_map_html(kv, **options))
    else:
        from w2v.plot import save_figure, word_map   # start-up: loads scipy.linalg (+0.3 s)
        save_figure(word_map(kv, size=size, **options), output, fmt)
    say(f"wrote {output} ({fmt})")


@click.command("plot-run", context_settings=_CTX)
@click.argument("report", type=click.Path(dir_okay=False))
@click.option("-o", "--output", default=None, help="The picture: .png, .svg or .pdf [default: REPORT as .png].")
@click.option("--format", "fmt", type=click.Choice(["png", "svg", "pdf"]), default=None,
              help="png, svg or pdf [default: the suffix of -o].")
@click.option("--size", default="1200x900", show_default=True, help="WIDTHxHEIGHT in pixels.")
@one_line_errors
def plot_run(report, output, fmt, size):
    """Draw the training curves of REPORT, a `w2v train --report-json` file.

    Running loss, words/s and learning rate over the training time, with the
    ends of epochs; the segments of a run resumed from a checkpoint joined;
    for a Dask run, the merge time of each round.
    """
    from w2v.plot import check_size   # start-up: loads scipy.linalg (+0.3 s)

    output = output or os.path.splitext(report)[0] + ".png"
    fmt = check_picture_output(output, fmt, ("png", "svg", "pdf"))
    size = check_size(size)
    _exists(report)
    save_training_plot(read_report(report), output, size=size, fmt=fmt, source=report)
    say(f"wrote {output} ({fmt})")


def read_report(path):
    """The report of ``w2v train --report-json`` in the file ``path``."""
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FormatError(f"{path}: not a JSON report ({' '.join(str(exc).split())})") from None
    if not isinstance(report, dict):
        raise FormatError(f"{path}: not a w2v train --report-json report")
    return report


def save_training_plot(report, output, size=None, fmt=None, source=None):
    """Draw the curves of ``report`` into the picture ``output`` (``source``: the report's file, for errors)."""
    from w2v.plot import save_figure, training   # start-up: loads scipy.linalg (+0.3 s)

    try:
        fig = training(report) if size is None else training(report, size=size)
    except ParameterError as exc:
        if source is None:
            raise
        raise FormatError(f"{source}: {exc}") from None
    save_figure(fig, output, fmt)


@click.command("export", context_settings=_CTX)
@click.argument("vectors", type=click.Path())
@click.option("--projector", "directory", required=True, type=click.Path(file_okay=False),
              help="Write tensors.tsv, metadata.tsv and projector_config.pbtxt into this folder.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the N most frequent words.")
@one_line_errors
def export(vectors, directory, limit):
    """Export VECTORS for TensorBoard's Embedding Projector.

    `tensorboard --logdir DIR` shows them; the projector's "Load data"
    dialog also takes DIR/tensors.tsv and DIR/metadata.tsv (word and count).
    Only the first --limit rows are read.
    """
    from w2v.plot import export_projector, load_rows   # start-up: loads scipy.linalg (+0.3 s)

    _exists(vectors)
    kv = load_rows(vectors, limit)
    export_projector(kv, directory)
    say(f"wrote {len(kv):,} x {kv.vector_size} vectors to {directory} "
        f"(tensors.tsv, metadata.tsv, projector_config.pbtxt)")


def register(group):
    """Add ``plot``, ``plot-run`` and ``export`` to the click ``group`` (the ``w2v`` command group)."""
    for command in (plot, plot_run, export):
        group.add_command(command)
