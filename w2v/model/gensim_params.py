"""``Word2Vec(...)``'s parameters: gensim 4's, in gensim's order, and w2v's own names after them.

:func:`constructor_arguments` turns a call into :class:`w2v.settings.Settings`
fields and the gensim options that are not settings.  The settings' gensim
names, defaults and value mappings come from the table of :mod:`w2v.settings`
(each field's :class:`~w2v.settings.GensimName`); gensim's parameters that
are no setting (``sentences``, ``hashfxn``, ``trim_rule``...) are kept here.
The rule that picks the defaults (docs/gensim.md):

* **gensim mode**: the call gives any positional argument or any name that
  only gensim has (:data:`GENSIM_ONLY`: ``sentences``, ``corpus_file``,
  ``vector_size``, ``workers``, ``sg``, ``trim_rule``, ``callbacks``...).
  gensim's defaults apply: CBOW (``sg=0``), 3 worker threads.
* **w2v mode**: otherwise (w2v's names, the names both share, or nothing).
  w2v's defaults apply: skip-gram, as many threads as cores.

Every other default is the same in both.  A w2v name and its gensim
counterpart (``dim``/``vector_size``, ``threads``/``workers``,
``model``/``sg``) may not both be given.  ``max_vocab_size`` keeps w2v's
meaning in both modes: the N most frequent words, counted exactly (gensim
prunes rare words while counting, to bound memory, which approximates
that).  gensim's names that w2v cannot honour raise
:class:`~w2v.errors.ParameterError` naming them.
"""
import dataclasses
import inspect
import numbers

from ..util.checks import is_integer
from ..settings import GENSIM_WORKERS, SPECS
from ..errors import ParameterError

__all__ = ["GENSIM_ONLY", "GENSIM_ORDER", "GENSIM_WORKERS", "OPTION_DEFAULTS", "SHARED", "GensimOptions",
           "constructor_signature", "constructor_arguments"]

#: gensim 4's parameters of ``Word2Vec(...)``, in its order: the settings' gensim names among its own
GENSIM_ORDER = ("sentences", "corpus_file", "vector_size", "alpha", "window", "min_count", "max_vocab_size", "sample",
                "seed", "workers", "min_alpha", "sg", "hs", "negative", "ns_exponent", "cbow_mean", "hashfxn", "epochs",
                "null_word", "trim_rule", "sorted_vocab", "batch_words", "compute_loss", "callbacks", "comment",
                "max_final_vocab", "shrink_windows")
#: gensim's parameters that are no setting, and their defaults (gensim's)
OPTION_DEFAULTS = {"sentences": None, "corpus_file": None, "hashfxn": hash, "null_word": 0, "trim_rule": None,
                   "sorted_vocab": 1, "batch_words": 10000, "compute_loss": False, "callbacks": (), "comment": None,
                   "max_final_vocab": None, "shrink_windows": True}
#: each setting's gensim parameter, by field
_GENSIM = {field: spec.gensim for field, spec in SPECS.items() if spec.gensim is not None}
#: names of both, with the same meaning: Settings fields as they are
SHARED = tuple(name for name in GENSIM_ORDER if name in _GENSIM and _GENSIM[name].name == name)
#: names only gensim's Word2Vec takes: any of them given picks gensim mode
GENSIM_ONLY = tuple(name for name in GENSIM_ORDER if name not in SHARED)
#: gensim's name and w2v's of the settings that have both, in gensim's order
_COUNTERPARTS = tuple((name, field) for name in GENSIM_ORDER
                      for field, g in _GENSIM.items() if g.name == name != field)
#: w2v's names (keyword-only): the settings gensim has no name for, or another name
_W2V_ONLY = tuple(field for field in SPECS if field not in SHARED)


def _signature():
    """The signature of ``Word2Vec.__init__``: gensim's parameters with gensim's defaults, then w2v's
    keyword-only names (``None`` where gensim's counterpart may be given instead)."""
    by_name = {g.name: SPECS[field].gensim_default for field, g in _GENSIM.items()}
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", positional)]
    params += [inspect.Parameter(name, positional, default=OPTION_DEFAULTS[name] if name in OPTION_DEFAULTS
                                 else by_name[name]) for name in GENSIM_ORDER]
    params += [inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY,
                                 default=None if field in _GENSIM else SPECS[field].default) for field in _W2V_ONLY]
    return inspect.Signature(params)


_SIGNATURE = _signature()


@dataclasses.dataclass
class GensimOptions:
    """What a ``Word2Vec(...)`` call gives beyond the settings.

    Attributes
    ----------
    gensim_mode : bool
        A gensim-only name or a positional argument was given.
    sentences, corpus_file : object
        The corpus to train on at once (at most one).
    trim_rule, callbacks, compute_loss, comment, max_final_vocab, batch_words :
        gensim's options of these names.
    """

    gensim_mode: bool = False
    sentences: object = None
    corpus_file: object = None
    trim_rule: object = None
    callbacks: tuple = ()
    compute_loss: bool = False
    comment: str = None
    max_final_vocab: int = None
    batch_words: int = 10000


def constructor_signature():
    """The signature ``inspect.signature(Word2Vec)`` shows: gensim's parameters, then w2v's keyword-only ones."""
    return _SIGNATURE


def _refuse_unsupported(args):
    """Raise :class:`ParameterError` for gensim values that w2v cannot honour."""
    if args["hashfxn"] is not hash:
        raise ParameterError("hashfxn: w2v draws initial vectors from seed, not from a hash of each word; "
                             "only the default (hash) is accepted")
    if args["null_word"]:
        raise ParameterError("null_word: w2v has no null word (gensim adds it for concatenated context layers, "
                             "which w2v does not have); only null_word=0 is accepted")
    if not args["sorted_vocab"]:
        raise ParameterError("sorted_vocab=0: w2v always orders the vocabulary by count (its threads keep the "
                             "rows of the most frequent words first); only sorted_vocab=1 is accepted")
    if not args["shrink_windows"]:
        raise ParameterError("shrink_windows=False: w2v's kernels always draw each window's size in 1..window, "
                             "as word2vec.c; only shrink_windows=True is accepted")
    batch = args["batch_words"]
    if not is_integer(batch) or batch < 1:
        raise ParameterError(f"batch_words must be an integer >= 1 (got {batch!r})")
    if args["max_final_vocab"] is not None and not (
            isinstance(args["max_final_vocab"], numbers.Integral) and args["max_final_vocab"] >= 1):
        raise ParameterError(f"max_final_vocab must be an integer >= 1 (got {args['max_final_vocab']!r})")


def constructor_arguments(args, kwargs):
    """Translate a ``Word2Vec(*args, **kwargs)`` call.

    Returns
    -------
    settings : dict
        Fields of :class:`w2v.settings.Settings`.
    options : GensimOptions

    Raises
    ------
    TypeError
        An unknown name, too many positional arguments, a name given twice.
    ParameterError
        A gensim name with a value w2v cannot honour, or a w2v name given
        with its gensim counterpart.
    """
    bound = _SIGNATURE.bind(None, *args, **kwargs)
    given = set(bound.arguments) - {"self"}
    bound.apply_defaults()
    a = dict(bound.arguments)
    gensim_mode = bool(args) or any(name in given for name in GENSIM_ONLY)
    for theirs, ours in _COUNTERPARTS:
        if theirs in given and ours in given and a[theirs] is not None and a[ours] is not None:
            raise ParameterError(f"give {theirs} (gensim's name) or {ours} (w2v's), not both")
    _refuse_unsupported(a)
    settings = {name: _GENSIM[name].to_field(a[name]) for name in SHARED if name in given}
    settings.update({name: a[name] for name in _W2V_ONLY if name in given})
    if gensim_mode:   # gensim's defaults, through gensim's names, where w2v's name is not given
        for field, g in _GENSIM.items():
            settings.setdefault(field, g.to_field(a[g.name]))
    if a["sentences"] is not None and a["corpus_file"] is not None:
        raise ParameterError("give sentences or corpus_file, not both")
    options = GensimOptions(gensim_mode, a["sentences"], a["corpus_file"], a["trim_rule"], tuple(a["callbacks"] or ()),
                            bool(a["compute_loss"]), a["comment"], a["max_final_vocab"], a["batch_words"])
    return settings, options
