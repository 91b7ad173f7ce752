"""Pictures of vectors and of training runs: word maps, training curves, TensorBoard projector files.

* :func:`word_map` (``w2v plot``): a 2-D map of words as a matplotlib Figure;
  :func:`word_map_html` the same map as a self-contained interactive page;
* :func:`training` (``w2v plot-run``, ``w2v train --plot-training``): the
  running loss, words/s and learning rate of a run, from its
  ``--report-json`` report (or a ``Word2Vec.last_train``);
* :func:`export_projector` (``w2v export --projector``): files for
  TensorBoard's Embedding Projector.

The PNG/SVG pictures need matplotlib (``pip install 'w2v[plot]'``, which
also installs openTSNE for t-SNE maps; ``w2v[umap]`` adds UMAP); without it
they raise :class:`MissingExtraError`.  The HTML page and the projector files
need only NumPy.  Word maps read only the vectors they draw
(:func:`load_rows`), so a map of a large model's most frequent words is quick.

The package is on the vectors side: it imports nothing from training.

>>> import w2v, w2v.plot                                      # doctest: +SKIP
>>> fig = w2v.plot.word_map(w2v.load("vectors.bin"), top=200)  # doctest: +SKIP
>>> fig.savefig("map.png")                                    # doctest: +SKIP
"""
from .choose import Selection, parse_word_list, rows_needed, select_words
from .curves import training
from .deps import MissingExtraError, check_size, require_matplotlib, save_figure
from .html import word_map_html
from .project import METHODS, best_method, installed_methods, project
from .projector import export_projector
from .rows import load_rows
from .wordmap import word_map

__all__ = ["word_map", "word_map_html", "training", "export_projector", "save_figure", "load_rows",
           "select_words", "Selection", "project", "METHODS", "best_method", "installed_methods",
           "MissingExtraError", "require_matplotlib", "check_size", "parse_word_list", "rows_needed"]
