"""gensim's internals and deprecated names on :class:`w2v.vectors.keyed.KeyedVectors`, as thin equivalents.

The methods ``add_lifecycle_event`` (a record of events in
``lifecycle_events``), ``init_sims`` and ``word_vec`` (deprecated in
gensim 4), ``similarity_unseen_docs`` (Doc2Vec's; it raises, as in gensim),
and the attributes gensim 4 removed (``vocab``, ``index2word``,
``index2entity``, ``vectors_norm``), which raise an AttributeError naming
what replaces them, as gensim's do.  The methods are plain functions and the
attributes properties, bound in the class body of
:class:`~w2v.vectors.keyed.KeyedVectors` (the functions' first parameter is
``self``, see :mod:`w2v.vectors.keyed`).
"""
import copy
import datetime
import logging
import platform
import sys
from importlib.metadata import version

from ..errors import W2VError

logger = logging.getLogger(__name__)

__all__ = ["add_lifecycle_event", "index2entity", "index2word", "init_sims", "similarity_unseen_docs", "vectors_norm",
           "vocab", "word_vec"]


class _Doc2VecOnlyError(W2VError, NotImplementedError):
    """A Doc2Vec method called on word vectors (also the ``NotImplementedError`` gensim raises)."""


def _version():
    try:
        return version("w2v")
    except Exception:  # noqa: BLE001 - not installed (a source tree on sys.path)
        return "unknown"


def _removed(name, instead):
    def get(self):
        raise AttributeError(f"The {name} attribute was removed in gensim 4.0.0 (and w2v has none): {instead}")

    return property(get, doc=f"Removed in gensim 4: {instead}")


vocab = _removed("vocab", "use .key_to_index, .index_to_key, and .get_vecattr(key, attr) / "
                          ".set_vecattr(key, attr, value)")
index2word = _removed("index2word", "use .index_to_key")
index2entity = _removed("index2entity", "use .index_to_key")
vectors_norm = _removed("vectors_norm", "use .get_normed_vectors()")


def add_lifecycle_event(self, event_name, log_level=logging.INFO, **event):
    """Record an event in ``lifecycle_events`` and log it, as gensim's objects do.

    Parameters
    ----------
    event_name : str
        What happened (``"created"``, ``"saved"``...).
    log_level : int or False, optional
        Log the event at this level; False logs nothing.
    **event
        Anything to record with it (JSON-serialisable).  ``datetime``,
        ``w2v`` (the version), ``python``, ``platform`` and ``event``
        are added.

    Notes
    -----
    ``lifecycle_events`` is a list created at the first event; set it to
    None to stop recording.  It is not saved with the vectors.
    """
    record = copy.deepcopy(event)
    record.update(datetime=datetime.datetime.now().isoformat(), w2v=_version(), python=sys.version,
                  platform=platform.platform(), event=event_name)
    if not hasattr(self, "lifecycle_events"):
        self.lifecycle_events = []
    if log_level:
        logger.log(log_level, "%s lifecycle event %s", type(self).__name__, record)
    if self.lifecycle_events is not None:
        self.lifecycle_events.append(record)


def init_sims(self, replace=False):
    """Compute the norms (gensim 4 deprecates it for :meth:`fill_norms`).

    Parameters
    ----------
    replace : bool, optional
        Also scale every vector to unit length (:meth:`unit_normalize_all`).
    """
    self.fill_norms()
    if replace:
        self.unit_normalize_all()


def word_vec(self, *args, **kwargs):
    """gensim's former name of :meth:`get_vector`."""
    return self.get_vector(*args, **kwargs)


def similarity_unseen_docs(self, *args, **kwargs):
    """Doc2Vec's method, which word vectors do not have: raises, as gensim's ``KeyedVectors`` does.

    Raises
    ------
    NotImplementedError
        Always (also a :class:`w2v.W2VError`).
    """
    raise _Doc2VecOnlyError("similarity_unseen_docs is a Doc2Vec method; word vectors have no documents")
