"""``model.json``, the header of a full model: its format, settings and run state, checked in one place.

A full model is untrusted input (docs/reliability.md, "Model files are untrusted input"): anyone can
write its ``model.json``.  Every reader of the header -- :func:`w2v.model.persist.load_model`
(``Word2Vec.load``, ``w2v train --resume``) and ``w2v info`` -- goes through :func:`check_header`, so
what one refuses all refuse, each with a :class:`~w2v.errors.FormatError` naming the file and the
field.  Every number must be of its type (an integer, not a float or a bool) and within its range,
and the fields of the run state must agree with one another (a run stopped within an epoch stopped
inside the corpus, before its last epoch, with statistics it could have gathered there), before
any of them is used.

The run state (``training``) is what :func:`w2v.training.lifecycle.begin_run` records, with the
keys of :data:`w2v.training.lifecycle.MID_EPOCH_KEYS` for a checkpoint saved within an epoch.
"""
import dataclasses
import math
from typing import NamedTuple

from ..errors import FormatError, ParameterError
from ..settings import MAX_EPOCHS, MAX_LANES, MAX_ROUND_WORDS, Settings

__all__ = ["MAX_COUNT", "MAX_TICKS", "MODEL_FILE", "MODEL_FORMAT", "MODEL_VERSION", "ModelHeader", "check_header",
           "check_run_state", "unknown_settings"]

MODEL_FORMAT = "w2v-model"
MODEL_VERSION = 1
MODEL_FILE = "model.json"
#: the largest count of ids, words or bytes a header may hold (the id stream is indexed by int64)
MAX_COUNT = 1 << 62
MAX_TICKS = 100_000   # progress ticks in training.progress (a run records about 100)
#: the columns of a progress tick (w2v.training.lifecycle.TICK_COLUMNS); the first, the segment, is an integer
TICK_WIDTH = 7


class ModelHeader(NamedTuple):
    """What :func:`check_header` read from ``model.json``, checked."""

    settings: Settings
    #: the run state (see :func:`check_run_state`), or None
    state: dict
    vocab_size: int
    dim: int
    #: the w2v version that wrote it, or None
    written_by: str


def _shown(value):
    """A value for a message: its repr, cut short (a number may have thousands of digits)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _integer(obj, key, label, field, lo=0, hi=MAX_COUNT):
    """``obj[key]``: an integer (not a bool) in ``lo..hi``; else a FormatError naming ``field``."""
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise FormatError(f"{label}: {field} must be an integer in {lo:,}..{hi:,}, got {_shown(value)}")
    return value


def _path(value):
    """Whether ``value`` can be a path: a non-empty string without NUL characters."""
    return isinstance(value, str) and value != "" and "\0" not in value


def check_header(header, label):
    """The format, settings, sizes and run state of the parsed ``model.json`` ``header``, checked.

    Parameters
    ----------
    header : object
        What the file held (parsed by the guarded reader, :func:`w2v.formats.files.parse_json`).
    label : str
        The file (or the member of a model saved as one file), for the messages.

    Returns
    -------
    ModelHeader

    Raises
    ------
    FormatError
        Not a w2v model header, an unsupported version, bad settings, or a
        field of the wrong type, out of its range or at odds with another;
        the message names ``label`` and the field.
    """
    if not isinstance(header, dict) or header.get("format") != MODEL_FORMAT:
        raise FormatError(f"{label}: not a w2v model header (format is not {MODEL_FORMAT!r})")
    if type(header.get("version")) is not int or header["version"] != MODEL_VERSION:
        raise FormatError(f"{label}: unsupported model format version {_shown(header.get('version'))}")
    settings = _settings(header.get("settings"), label)
    v = _integer(header, "vocab_size", label, "vocab_size", lo=1)
    dim = _integer(header, "dim", label, "dim", lo=1)
    if dim != settings.dim:
        raise FormatError(f"{label}: dim {dim} differs from settings.dim {settings.dim}")
    written = header.get("w2v_version")
    return ModelHeader(settings, check_run_state(header.get("training"), label), v, dim,
                       written if isinstance(written, str) else None)


def _settings(raw, label):
    if not isinstance(raw, dict):
        raise FormatError(f"{label}: 'settings' must be an object")
    names = {f.name for f in dataclasses.fields(Settings)}
    try:
        return Settings(**{k: v for k, v in raw.items() if k in names})
    except (ParameterError, TypeError, ValueError, OverflowError) as exc:
        raise FormatError(f"{label}: bad settings: {' '.join(str(exc).split())[:300]}") from None


def unknown_settings(header):
    """The settings of a header that this version does not know (ignored, so that a newer model loads).

    Parameters
    ----------
    header : dict
        A parsed ``model.json`` that :func:`check_header` accepted.

    Returns
    -------
    list of str
        Their names, sorted.
    """
    names = {f.name for f in dataclasses.fields(Settings)}
    return sorted(set(header["settings"]) - names)


def check_run_state(t, label):
    """The run state ``training`` of a model header, checked: a dict, or None for a model never trained.

    Parameters
    ----------
    t : object
        The parsed value of ``training``.
    label : str
        The file, for the messages.

    Returns
    -------
    dict or None
        ``epochs``, ``epochs_done``, ``corpus_length``, ``corpus_words``,
        ``corpus_files`` (or None) and whichever of ``corpus_file_stamps``,
        ``sharded``, ``progress``, ``output``, ``corpus_fingerprint`` and the
        mid-epoch keys the file holds; keys this version does not know are left out.

    Raises
    ------
    FormatError
        Naming ``label`` and the field (``training.position``...).
    """
    if t is None:
        return None
    if not isinstance(t, dict):
        raise FormatError(f"{label}: 'training' must be an object or null")
    state = {"epochs": _integer(t, "epochs", label, "training.epochs", hi=MAX_EPOCHS)}
    state["epochs_done"] = _integer(t, "epochs_done", label, "training.epochs_done", hi=state["epochs"])
    for key in ("corpus_length", "corpus_words"):
        state[key] = _integer(t, key, label, f"training.{key}")
    if state["corpus_words"] > state["corpus_length"]:
        raise FormatError(f"{label}: training.corpus_words {state['corpus_words']:,} is more than its "
                          f"corpus_length {state['corpus_length']:,} ids")
    state.update(_corpus_record(t, label))
    if t.get("sharded", False) is not False:
        if t["sharded"] is not True:
            raise FormatError(f"{label}: training.sharded must be true or false, got {_shown(t['sharded'])}")
        state["sharded"] = True
    if t.get("progress") is not None:
        state["progress"] = _progress_ticks(t["progress"], label)
    output = t.get("output")   # where w2v train wrote the run's vectors (Word2Vec.record_output)
    if output is not None:
        if not (isinstance(output, dict) and _path(output.get("path"))
                and output.get("format") in ("bin", "text", "native")):
            raise FormatError(f"{label}: training.output must hold a path and a format (bin, text or native)")
        state["output"] = {"path": output["path"], "format": output["format"]}
    fp = t.get("corpus_fingerprint")
    if fp is not None:
        if not (isinstance(fp, dict) and isinstance(fp.get("hash"), str) and len(fp["hash"]) == 32
                and all(c in "0123456789abcdef" for c in fp["hash"])):
            raise FormatError(f"{label}: training.corpus_fingerprint must hold a hash of 32 hexadecimal digits")
        state["corpus_fingerprint"] = {"ids": _integer(fp, "ids", label, "training.corpus_fingerprint.ids"),
                                       "words": _integer(fp, "words", label, "training.corpus_fingerprint.words"),
                                       "hash": fp["hash"]}
    if t.get("position") is not None and t["position"] != 0:
        state.update(_mid_epoch_state(t, state, label))
    return state


def _corpus_record(t, label):
    # the corpus' files and the size and modification time each had (w2v.text.inputs.file_stamps)
    files = t.get("corpus_files")
    if files is not None and not (isinstance(files, list) and all(_path(f) for f in files)):
        raise FormatError(f"{label}: training.corpus_files must be a list of paths")
    out = {"corpus_files": files}
    stamps = t.get("corpus_file_stamps")
    if stamps is not None:
        if not (files is not None and isinstance(stamps, list) and len(stamps) == len(files) and all(
                isinstance(s, list) and len(s) == 2 and all(type(x) is int and 0 <= x <= MAX_COUNT for x in s)
                for s in stamps)):
            raise FormatError(f"{label}: training.corpus_file_stamps must hold a [size, modification time] "
                              "pair of integers for each of its corpus_files")
        out["corpus_file_stamps"] = stamps
    return out


def _mid_epoch_state(t, state, label):
    # a checkpoint saved within an epoch: where it stopped, in what mode, and the epoch's statistics so far
    position = _integer(t, "position", label, "training.position", lo=1, hi=max(1, state["corpus_length"] - 1))
    if state["epochs_done"] >= state["epochs"]:
        raise FormatError(f"{label}: training.position {position:,} lies in epoch {state['epochs_done'] + 1}, "
                          f"after the last of its {state['epochs']} epochs")
    if state["corpus_length"] < 2:
        raise FormatError(f"{label}: training.position {position:,} lies past the end of the corpus "
                          f"({state['corpus_length']} ids)")
    if state.get("sharded"):
        raise FormatError(f"{label}: training.position: a run on Dask (sharded) stops only at the end of an epoch")
    out = {"position": position, "mode": t.get("mode")}
    if out["mode"] not in ("jobs", "lanes"):
        raise FormatError(f"{label}: training.mode must be 'jobs' or 'lanes', got {_shown(out['mode'])}")
    out["epoch_stats"] = _epoch_stats(t.get("epoch_stats"), position, label)
    if out["mode"] == "lanes":
        out["round"] = _integer(t, "round", label, "training.round", lo=1, hi=position)
        out["lanes"] = _integer(t, "lanes", label, "training.lanes", lo=1, hi=MAX_LANES)
        out["round_words"] = _integer(t, "round_words", label, "training.round_words", lo=1, hi=MAX_ROUND_WORDS)
    return out


def _epoch_stats(stats, position, label):
    """``[loss, examples, kept, seen]`` of the ids of the epoch trained before ``position``, as floats."""
    problem = "must be 4 finite numbers >= 0"
    if isinstance(stats, list) and len(stats) == 4 and all(
            type(x) in (int, float) and 0 <= x <= MAX_COUNT and math.isfinite(x) for x in stats):
        _, _, kept, seen = stats
        if seen > position or kept > seen:
            problem = (f"must count at most the {position:,} ids trained before training.position "
                       "(words kept <= words seen <= position)")
        else:
            return [float(x) for x in stats]
    raise FormatError(f"{label}: training.epoch_stats {problem}, got {_shown(stats)}")


def _progress_ticks(ticks, label):
    # rows of TICK_WIDTH: the segment (an integer), then numbers or nulls (w2v.training.lifecycle.TICK_COLUMNS)
    def number(x):
        return x is None or (type(x) in (int, float) and abs(x) <= MAX_COUNT and math.isfinite(x))

    if not (isinstance(ticks, list) and len(ticks) <= MAX_TICKS and all(
            isinstance(r, list) and len(r) == TICK_WIDTH and type(r[0]) is int and 0 <= r[0] <= MAX_TICKS
            and all(map(number, r[1:])) for r in ticks)):
        raise FormatError(f"{label}: training.progress must be a list of at most {MAX_TICKS:,} rows of "
                          f"{TICK_WIDTH} numbers (the first an integer segment)")
    return ticks
