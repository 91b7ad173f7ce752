"""The checks of a training report (``w2v train --report-json``) before its curves are drawn.

A report is a file someone may send: every field that :mod:`w2v.plot.curves` reads is checked
for its type and range first, so that a damaged or crafted report is a
:class:`~w2v.errors.ParameterError` naming the field (``w2v plot-run`` adds the file's name),
never a traceback, and so that drawing it takes bounded time: at most :data:`MAX_TICKS` ticks in
at most :data:`MAX_SEGMENTS` segments, :data:`MAX_ROUND_ROWS` rounds and
:data:`MAX_EPOCHS` epochs.
"""
import math

import numpy as np

from ..errors import ParameterError

__all__ = ["MAX_EPOCHS", "MAX_ROUND_ROWS", "MAX_SEGMENTS", "MAX_TICKS", "TICK_COLUMNS", "ROUND_COLUMNS",
           "check_report", "table_columns"]

#: the columns of ``progress`` that the curves use (a report holds these, in its own order)
TICK_COLUMNS = ("segment", "seconds", "fraction", "epoch", "words_per_sec", "learning_rate", "loss")
#: the columns of ``rounds`` that the curves use
ROUND_COLUMNS = ("rounds", "seconds", "merge_seconds")
#: columns whose values may be null (no loss before an epoch's first example; no rate yet)
_NULLABLE = ("words_per_sec", "learning_rate", "loss", "merge_seconds")
#: the most ticks a report may hold: about 100 a process, and a resumed run adds a process a segment
MAX_TICKS = 100_000
#: the most segments (processes that continued the run) a report may hold
MAX_SEGMENTS = 1_000
#: the most rows of ``rounds`` (a report keeps at most 1,000)
MAX_ROUND_ROWS = 10_000
#: the most epochs of a run (as the training settings allow)
MAX_EPOCHS = 10_000


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value):
    """Whether ``value`` is a finite int or float (an int too large for a float is not)."""
    try:
        return _is_number(value) and math.isfinite(value)
    except OverflowError:
        return False


def round_columns(rounds):
    """A Dask run's rounds as the columns of :data:`ROUND_COLUMNS`: from its list of rounds (one entry each,
    ``wall_seconds`` and the ``merge_seconds`` of its merge tasks, the slowest counted), or from the table
    ``{"columns", "rows"}`` of a report of a single merge task.

    Raises
    ------
    ParameterError
        Not a list of rounds nor a table, too many rounds, or a value that is not a finite number.
    """
    if isinstance(rounds, dict):
        return table_columns(rounds, "rows", "rounds", ROUND_COLUMNS)
    if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
        raise ParameterError("the report's rounds are neither a list of rounds nor a table")
    if len(rounds) > MAX_ROUND_ROWS:
        raise ParameterError(f"the report's rounds hold more than {MAX_ROUND_ROWS:,} rows")
    seconds, merge = [], []
    for r in rounds:
        wall, merges = r.get("wall_seconds"), r.get("merge_seconds")
        if not _finite(wall) or not isinstance(merges, list) or not all(_finite(m) for m in merges):
            raise ParameterError("the report's rounds need finite wall_seconds and a list of merge_seconds")
        seconds.append(float(wall))
        merge.append(max(map(float, merges), default=0.0))
    return {"seconds": np.array(seconds), "merge_seconds": np.array(merge), "rounds": np.ones(len(rounds))}


def table_columns(table, rows_key, what, needed):
    """The columns of one table of a report (``progress`` or ``rounds``), as float64 arrays by name.

    Parameters
    ----------
    table : object
        ``{"columns": [names], rows_key: [[values], ...]}``.
    rows_key : str
    what : str
        The table's name, for messages.
    needed : tuple of str
        The columns that must be there (when it has rows).

    Returns
    -------
    dict or None
        None where the table has no rows.

    Raises
    ------
    ParameterError
        Not such a table: no list of column names, rows that are not lists of that many finite
        numbers (null where a column may be empty), too many rows, a needed column missing.
    """
    if not isinstance(table, dict) or not isinstance(table.get("columns"), list):
        raise ParameterError(f"the report's {what} has no columns")
    columns = table["columns"]
    if not all(isinstance(c, str) for c in columns) or len(set(columns)) != len(columns):
        raise ParameterError(f"the report's {what} columns are not distinct names")
    rows = table.get(rows_key)
    if rows is None or rows == []:
        return None
    limit = MAX_TICKS if what == "progress" else MAX_ROUND_ROWS
    if not isinstance(rows, list) or len(rows) > limit:
        raise ParameterError(f"the report's {what} {rows_key} are not a list of at most {limit:,} rows")
    missing = [c for c in needed if c not in columns]
    if missing:
        raise ParameterError(f"the report's {what} lacks the column {missing[0]!r}")
    width = len(columns)
    if not all(isinstance(r, list) and len(r) == width for r in rows):
        raise ParameterError(f"the report's {what} rows do not have {width} fields each")
    nullable = [c in _NULLABLE for c in columns]
    for k, row in enumerate(rows):
        for name, value, empty_ok in zip(columns, row, nullable):
            if value is None and empty_ok:
                continue
            if not _finite(value):
                raise ParameterError(f"the report's {what} row {k + 1}: {name} is {str(value)[:40]}, "
                                     "not a finite number")
    data = np.array([[np.nan if v is None else float(v) for v in r] for r in rows], dtype=np.float64)
    return {name: data[:, k] for k, name in enumerate(columns)}


def check_report(report):
    """Check the fields of ``report`` (a dict) that the curves and their title read.

    Parameters
    ----------
    report : dict

    Returns
    -------
    dict
        ``ticks`` (the columns of ``progress``, or None where it holds no ticks), ``rounds``
        (those of ``rounds``, or None) and ``epochs`` (the run's epochs: its settings', else the
        last tick's).

    Raises
    ------
    ParameterError
        ``report`` is not a dict, or a field has the wrong type or an absurd value (see
        :func:`table_columns`): ``settings`` not an object, ``epochs`` not an integer from 1 to
        :data:`MAX_EPOCHS`, ``corpus`` not a list of strings, a time or rate not a finite
        number, more than :data:`MAX_SEGMENTS` segments.
    """
    if not isinstance(report, dict):
        raise ParameterError(f"a report is an object (dict), not {type(report).__name__}")
    settings = report.get("settings")
    if settings is not None and not isinstance(settings, dict):
        raise ParameterError("the report's settings are not an object")
    settings = settings or {}
    for key, kind in (("model", str), ("dim", int)):
        value = settings.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise ParameterError(f"the report's settings: {key} is {str(value)[:40]}, not a {kind.__name__}")
    corpus = report.get("corpus")
    if corpus is not None and not (isinstance(corpus, list) and all(isinstance(c, str) for c in corpus)):
        raise ParameterError("the report's corpus is not a list of paths")
    for key in ("train_seconds", "words_per_sec"):
        value = report.get(key)
        if value is not None and not _finite(value):
            raise ParameterError(f"the report's {key} is {str(value)[:40]}, not a finite number")
    ticks = table_columns(report.get("progress"), "ticks", "progress", TICK_COLUMNS)
    rounds = round_columns(report["rounds"]) if report.get("rounds") else None
    epochs = settings.get("epochs")
    if ticks is not None:
        if len(np.unique(ticks["segment"])) > MAX_SEGMENTS:
            raise ParameterError(f"the report's progress holds more than {MAX_SEGMENTS:,} segments")
        if epochs is None:
            epochs = int(ticks["epoch"].max()) if 1 <= ticks["epoch"].max() <= MAX_EPOCHS else 0
    if epochs is not None and (not isinstance(epochs, int) or isinstance(epochs, bool)
                               or not 1 <= epochs <= MAX_EPOCHS):
        raise ParameterError(f"the report's epochs are {str(epochs)[:40]}, not an integer from 1 to {MAX_EPOCHS:,}")
    return {"ticks": ticks, "rounds": rounds, "epochs": epochs}
