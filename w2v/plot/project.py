"""From vectors to points on a plane: PCA (NumPy), t-SNE (openTSNE or scikit-learn), UMAP (umap-learn).

Every method sees unit vectors, so that distances on the map follow the
cosine, as ``most_similar`` does.  The default, ``auto``, is the best method
installed: t-SNE, which keeps each word's nearest neighbours together and is
the usual picture of word vectors, then UMAP (umap-learn, which compiles its
Numba code on its first use), then PCA.
"""
import importlib.util
import warnings

import numpy as np

from ..errors import ParameterError
from .deps import PLOT_EXTRA, MissingExtraError

__all__ = ["METHODS", "installed_methods", "best_method", "project"]

METHODS = ("pca", "tsne", "umap")
UMAP_EXTRA = "pip install 'w2v[umap]'"


def _installed(module):
    return importlib.util.find_spec(module) is not None


def installed_methods():
    """The methods usable here, best first (``pca`` always)."""
    found = []
    if _installed("openTSNE") or _installed("sklearn"):
        found.append("tsne")
    if _installed("umap"):
        found.append("umap")
    return found + ["pca"]


def best_method():
    """The best method installed: ``tsne``, ``umap`` or ``pca``."""
    return installed_methods()[0]


def project(vectors, method="auto", seed=1, group=None):
    """Points on a plane for ``vectors``, one per row.

    Parameters
    ----------
    vectors : numpy.ndarray
        Shape ``(n, dim)``; rows are scaled to unit length first.
    method : str
        ``auto`` (:func:`best_method`), ``pca``, ``tsne`` or ``umap``.
    seed : int
        The random seed of t-SNE and UMAP (the same seed gives the same map).
    group : int, optional
        The size of the groups the map should keep apart (a word and its
        neighbours): t-SNE's perplexity is half of it, UMAP's n_neighbors
        is it.  By default the packages' own, 30 and 15 (at most a third of
        the words and all but one).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n, 2)``.

    Raises
    ------
    MissingExtraError
        ``tsne`` or ``umap`` without the package that computes it.
    ParameterError
        An unknown method.
    """
    method = best_method() if method in (None, "auto") else str(method).lower()
    if method not in METHODS:
        raise ParameterError(f"unknown method {method!r}: use auto, {', '.join(METHODS)}")
    x = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    x = x / np.where(norms > 0, norms, 1.0)
    n = x.shape[0]
    if n < 5 or method == "pca":   # t-SNE and UMAP need a few neighbours; PCA is exact for so few
        return pca(x)
    if method == "tsne":
        return _tsne(x, seed, _perplexity(n, group))
    return _umap(x, seed, int(min(group or 15, n - 1)))


def pca(x):
    """The first two principal components of the rows of ``x`` (signs fixed: the largest loading
    of each component is positive, so the same vectors give the same map)."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] == 0:
        return np.zeros((0, 2))
    centred = x - x.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    comps = np.zeros((2, x.shape[1]))
    comps[:min(2, vt.shape[0])] = vt[:2]
    signs = np.sign(comps[np.arange(2), np.argmax(np.abs(comps), axis=1)])
    comps *= np.where(signs == 0, 1.0, signs)[:, None]
    return centred @ comps.T


def _perplexity(n, group):
    # at most (n - 1) / 3, which scikit-learn requires
    wanted = 30.0 if group is None else group / 2
    return float(max(2.0, min(wanted, (n - 1) / 3.0)))


def _tsne(x, seed, perplexity):
    if _installed("openTSNE"):
        from openTSNE import TSNE   # optional extra: openTSNE (w2v[plot])
        # Barnes-Hut: 1.9 s for 300 words, where the FFT method (for large n) takes 6.0 s
        embedding = TSNE(n_components=2, perplexity=perplexity, metric="cosine", initialization="pca",
                         negative_gradient_method="bh", random_state=seed, n_jobs=1, verbose=False).fit(x)
        return np.asarray(embedding, dtype=np.float64)
    if _installed("sklearn"):
        from sklearn.manifold import TSNE   # optional: scikit-learn, where openTSNE is not installed
        return TSNE(n_components=2, perplexity=perplexity, metric="cosine", init="pca",
                    random_state=seed).fit_transform(x).astype(np.float64)
    raise MissingExtraError(f"--method tsne needs openTSNE or scikit-learn: {PLOT_EXTRA}")


def _umap(x, seed, n_neighbors):
    if not _installed("umap"):
        raise MissingExtraError(f"--method umap needs umap-learn: {UMAP_EXTRA}")
    import umap   # optional extra: umap-learn (w2v[umap])
    with warnings.catch_warnings():   # "n_jobs overridden by setting random_state": wanted, for the same map
        warnings.simplefilter("ignore")
        model = umap.UMAP(n_components=2, n_neighbors=max(2, n_neighbors), metric="cosine",
                          random_state=seed, init="spectral")
        return np.asarray(model.fit_transform(x), dtype=np.float64)
