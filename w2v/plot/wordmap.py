"""The word map as a matplotlib Figure: points, labels that do not overlap, a colour per group."""
import numpy as np

from .choose import DEFAULT_TOP, select_words
from .deps import new_figure, require_matplotlib
from .labels import overlapping_pairs, place_labels
from .project import best_method, project

__all__ = ["word_map", "draw_word_map", "label_boxes", "GROUP_COLOURS", "method_name"]

# Okabe-Ito's colour-blind-safe colours, then Paul Tol's dark ones: each prints dark enough on white
GROUP_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#117733",
                 "#332288", "#999933", "#AA4499", "#44AA99")
POINT_COLOUR, LABEL_COLOUR = "#4a6fa5", "#1b1b1b"
DEFAULT_SIZE = (1600, 1200)
SHRINK = 0.88          # the font scale of a retry when some labels found no free spot
MAX_TRIES = 6
LABEL_GAP = 2.0        # pixels between two labels


def method_name(method):
    """The method as a title says it."""
    return {"pca": "PCA", "tsne": "t-SNE", "umap": "UMAP"}.get(method, str(method))


def word_map(kv, top=DEFAULT_TOP, skip_top=0, words=None, neighbours=None, topn=10, method="auto",
             size=DEFAULT_SIZE, dpi=100, title=None, seed=1, restrict_vocab=None, font_size=None):
    """A 2-D map of words of ``kv``, labelled without overlaps.

    Parameters
    ----------
    kv : KeyedVectors
    top : int
        The most frequent words to draw (after ``skip_top``), when neither
        ``words`` nor ``neighbours`` is given.
    skip_top : int
        Leave out this many most frequent words first (stop words).
    words : list of str, optional
        Draw these words.
    neighbours : list of str, optional
        Draw each word with its ``topn`` nearest, a colour per group.
    topn : int
    method : str
        ``auto`` (the best installed), ``pca``, ``tsne`` or ``umap`` (:func:`w2v.plot.project`).
    size : tuple of int or str
        Width and height in pixels (``(1600, 1200)`` or ``"1600x1200"``).
    dpi : int
        Pixels per inch: text sizes are in points, so a higher dpi draws larger text.
    title : str, optional
        By default it says which words and which method.
    seed : int
        Seed of t-SNE and UMAP.
    restrict_vocab : int, optional
        Search the neighbours among the first ``restrict_vocab`` words only.
    font_size : float, optional
        Label size in points (default 9, or 8 beyond 150 words); smaller where the labels do not fit.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    MissingExtraError
        matplotlib (or the method's package) is not installed.
    UnknownWordError, ParameterError
        As :func:`w2v.plot.select_words`.
    """
    require_matplotlib()   # before any work
    selection = select_words(kv, top=top, skip_top=skip_top, words=words, neighbours=neighbours, topn=topn,
                             restrict_vocab=restrict_vocab)
    method = best_method() if method in (None, "auto") else method
    # a map of neighbour groups keeps groups of topn + 1 words apart
    coords = project(selection.vectors, method, seed, group=topn + 1 if neighbours else None)
    if title is None:
        title = default_title(selection, top, skip_top, words, neighbours, method)
    return draw_word_map(selection, coords, size=size, dpi=dpi, title=title, font_size=font_size)


def default_title(selection, top, skip_top, words, neighbours, method):
    """What the map shows, in a line."""
    if neighbours:
        what = f"{', '.join(selection.group_names)} and their nearest words"
    elif words is not None:
        what = f"{len(selection):,} words"
    else:
        what = f"the {len(selection):,} most frequent words" + (f" after the first {skip_top:,}" if skip_top else "")
    return f"{what} ({method_name(method)})"


def draw_word_map(selection, coords, size=DEFAULT_SIZE, dpi=100, title=None, font_size=None):
    """Draw ``selection`` at ``coords`` (``(n, 2)``): a Figure with points and labels.

    Parameters
    ----------
    selection : w2v.plot.Selection
    coords : numpy.ndarray
    size, dpi, title, font_size
        As :func:`word_map`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = new_figure(size, dpi)
    coords = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    top_margin = 0.05 if title else 0.01
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.98 - top_margin))
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_color("#cccccc")
    if title:
        fig.text(0.5, 1 - top_margin / 2, title, ha="center", va="center", fontsize=12, color=LABEL_COLOUR)
    grouped = bool(selection.group_names)
    colours = _point_colours(selection, grouped)
    ax.scatter(coords[:, 0], coords[:, 1], s=np.where(selection.heads, 36, 14), c=colours, zorder=3,
               linewidths=0)
    _set_limits(ax, coords)
    base = font_size or (9.0 if len(selection) <= 150 else 8.0)
    _label(fig, ax, selection, coords, colours if grouped else None, base)
    return fig


def _point_colours(selection, grouped):
    if not grouped:
        return [POINT_COLOUR] * len(selection)
    return [GROUP_COLOURS[g % len(GROUP_COLOURS)] for g in selection.groups]


def _set_limits(ax, coords):
    """Room around the points for the labels: 8% of the spread on each side (or a unit square)."""
    if not len(coords):
        return
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    ax.set_xlim(lo[0] - 0.08 * span[0], hi[0] + 0.08 * span[0])
    ax.set_ylim(lo[1] - 0.08 * span[1], hi[1] + 0.08 * span[1])


def _label(fig, ax, selection, coords, colours, base):
    """Labels placed without overlaps; the font shrinks until every label finds a spot."""
    renderer = fig.canvas.get_renderer()
    anchors = ax.transData.transform(coords) if len(coords) else np.zeros((0, 2))
    area = ax.get_window_extent(renderer)
    bounds = (area.x0 + 2, area.y0 + 2, area.x1 - 2, area.y1 - 2)
    # heads first, then in the selection's order (by frequency for the most frequent words)
    order = sorted(range(len(selection)), key=lambda i: (not selection.heads[i], i))
    for attempt in range(MAX_TRIES):
        scale = SHRINK ** attempt
        texts = [ax.text(0, 0, w, fontsize=base * (1.2 if head else 1.0) * scale,
                         fontweight="bold" if head else "normal", ha="left", va="bottom", zorder=4,
                         color=LABEL_COLOUR if colours is None else colours[i])
                 for i, (w, head) in enumerate(zip(selection.words, selection.heads))]
        extents = [t.get_window_extent(renderer) for t in texts]
        sizes = np.array([[e.width, e.height] for e in extents]).reshape(-1, 2)
        placement = place_labels(anchors, sizes, bounds, order=order, gap=LABEL_GAP)
        if placement.placed.all() or attempt == MAX_TRIES - 1:
            break
        for t in texts:
            t.remove()
    to_data = ax.transData.inverted()
    for i, (t, e) in enumerate(zip(texts, extents)):
        if not placement.placed[i]:   # no free spot even at the smallest size: the point stays, unlabelled
            t.remove()
            continue
        x0, y0, x1, y1 = placement.boxes[i]
        # the text's own offset from its anchor (e.x0, e.y0 measured with the anchor at 0, 0)
        origin = ax.transData.transform((0, 0))
        t.set_position(to_data.transform((x0 - (e.x0 - origin[0]), y0 - (e.y0 - origin[1]))))
        if placement.leaders[i]:
            end = (np.clip(anchors[i, 0], x0, x1), np.clip(anchors[i, 1], y0, y1))
            ax.plot(*zip(coords[i], to_data.transform(end)), color="#9a9a9a", linewidth=0.6, zorder=2)


def label_boxes(fig):
    """The boxes ``(n, 4)`` in pixels of the word labels of a map drawn by :func:`word_map`."""
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    return np.array([[b.x0, b.y0, b.x1, b.y1] for b in (t.get_window_extent(renderer) for t in ax.texts)])


def check_no_overlaps(fig):
    """The pairs of overlapping labels of a word map (none when the placement worked)."""
    return overlapping_pairs(label_boxes(fig))
