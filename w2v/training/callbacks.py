"""Callbacks around training, duck-typed like gensim's ``CallbackAny2Vec``.

A callback is any object with some of the methods ``on_train_begin``,
``on_epoch_begin``, ``on_epoch_end`` and ``on_train_end``, each called with
the model; a missing method is skipped.  gensim's own ``CallbackAny2Vec``
subclasses work unchanged, and :class:`CallbackAny2Vec` here is the same
base class for code that does not import gensim.
"""
from ..errors import ParameterError

__all__ = ["CallbackAny2Vec", "CallbackRun", "HOOKS"]

HOOKS = ("on_train_begin", "on_epoch_begin", "on_epoch_end", "on_train_end")


class CallbackAny2Vec:
    """Base class of training callbacks: override the methods you need (each does nothing here).

    Examples
    --------
    >>> class EpochSaver(CallbackAny2Vec):                  # doctest: +SKIP
    ...     def on_epoch_end(self, model):
    ...         model.save("checkpoint")
    """

    def on_epoch_begin(self, model):
        """Called before each epoch."""

    def on_epoch_end(self, model):
        """Called after each epoch (every job of it has finished)."""

    def on_train_begin(self, model):
        """Called at the start of ``train``."""

    def on_train_end(self, model):
        """Called at the end of ``train``."""


class CallbackRun:
    """The callbacks of one ``train`` call, and w2v's ``on_epoch_end(epoch)`` hook, in gensim's order.

    ``on_train_begin``, then for each epoch ``on_epoch_begin`` and
    ``on_epoch_end`` (after w2v's hook), then ``on_train_end``.

    Parameters
    ----------
    model : w2v.model.word2vec.Word2Vec
    callbacks : iterable
        Objects with any of :data:`HOOKS`.
    on_epoch_end : callable, optional
        w2v's hook, ``on_epoch_end(epoch)``.

    Raises
    ------
    ParameterError
        A callback has none of the methods, or ``on_epoch_end`` is not callable.
    """

    def __init__(self, model, callbacks=(), on_epoch_end=None):
        if on_epoch_end is not None and not callable(on_epoch_end):
            raise ParameterError(f"on_epoch_end must be callable, not {type(on_epoch_end).__name__}")
        self.model = model
        self.callbacks = list(callbacks or ())
        for cb in self.callbacks:
            if not any(callable(getattr(cb, name, None)) for name in HOOKS):
                raise ParameterError(f"callback {cb!r} has none of the methods {', '.join(HOOKS)}")
        self.hook = on_epoch_end

    def _call(self, name):
        for cb in self.callbacks:
            method = getattr(cb, name, None)
            if callable(method):
                method(self.model)

    @property
    def epoch_hook(self):
        """What the runners call after each epoch (``None`` without callbacks or hook: the epochs
        then run as one stream)."""
        if not self.callbacks:
            return self.hook
        return self._epoch_end

    def _epoch_end(self, epoch):
        if self.hook is not None:
            self.hook(epoch)
        self._call("on_epoch_end")
        if epoch + 1 < self.model.settings.epochs:
            self._call("on_epoch_begin")

    def begin(self, first_epoch=0):
        """``on_train_begin``, and ``on_epoch_begin`` of the first epoch when there is one to train."""
        self._call("on_train_begin")
        if first_epoch < self.model.settings.epochs:
            self._call("on_epoch_begin")

    def end(self):
        """``on_train_end``."""
        self._call("on_train_end")
