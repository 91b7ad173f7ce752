"""Training curves from a run's report: running loss, words/s, learning rate, Dask merge time.

The report is what ``w2v train --report-json`` writes (or what
``Word2Vec.last_train.progress_report()`` returns): its ``progress`` holds
about 100 ticks of the run, its ``rounds`` a Dask run's timings per round.
The curves share one time axis, training seconds; the segments of a run
continued from a checkpoint follow one another on it, with the point where
each took over marked.  Dotted lines mark the ends of epochs.
"""
import numpy as np

from ..errors import ParameterError
from .deps import new_figure

__all__ = ["training", "run_series", "smoothed_rate"]

DEFAULT_SIZE = (1200, 900)
LINE, EPOCH, RESUME = "#0072B2", "#9a9a9a", "#D55E00"


def _columns(table, rows_key, what):
    if not isinstance(table, dict) or not isinstance(table.get("columns"), list):
        raise ParameterError(f"the report's {what} has no columns")
    rows = table.get(rows_key)
    if not isinstance(rows, list) or not rows:
        return None
    width = len(table["columns"])
    if not all(isinstance(r, list) and len(r) == width for r in rows):
        raise ParameterError(f"the report's {what} rows do not have {width} fields each")
    data = np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)
    return {name: data[:, k] for k, name in enumerate(table["columns"])}


def as_report(run):
    """``run`` as a report dict: a dict as it is, a ``RunResult`` through its ``progress_report()``."""
    if isinstance(run, dict):
        return run
    if hasattr(run, "progress_report"):
        report = dict(run.progress_report())
        report.update(epoch_loss=list(run.epoch_loss), train_seconds=run.seconds)
        return report
    raise ParameterError(f"expected a --report-json report (dict) or a Word2Vec.last_train, not {type(run).__name__}")


def run_series(report):
    """The curves of ``report`` on one time axis.

    Returns
    -------
    dict
        ``time`` (training seconds, the segments joined), ``loss``, ``words_per_sec``,
        ``learning_rate``, ``fraction``, ``epoch`` (arrays, one value a tick),
        ``epoch_ends`` (times where an epoch ended), ``resumes`` (times where a segment
        began), and, for a Dask run, ``round_time`` and ``merge_seconds``.

    Raises
    ------
    ParameterError
        The report holds no progress ticks (written by a w2v that did not record them).
    """
    report = as_report(run=report)
    ticks = _columns(report.get("progress"), "ticks", "progress")
    if ticks is None:
        raise ParameterError("the report holds no progress ticks (w2v train --report-json records them)")
    segment, seconds = ticks["segment"], ticks["seconds"]
    offsets, time, resumes, start = {}, np.empty_like(seconds), [], 0.0
    for s in np.unique(segment):
        mask = segment == s
        if offsets:
            resumes.append(start)
        offsets[s] = start
        time[mask] = start + seconds[mask]
        start = time[mask].max()
    epochs = int(((report.get("settings") or {}).get("epochs")) or np.nanmax(ticks["epoch"]))
    frac = ticks["fraction"]
    ends = [float(np.interp(e / epochs, frac, time)) for e in range(1, epochs)
            if frac.min() <= e / epochs <= frac.max()]
    series = dict(time=time, loss=ticks["loss"], words_per_sec=ticks["words_per_sec"],
                  learning_rate=ticks["learning_rate"], fraction=frac, epoch=ticks["epoch"], epoch_ends=ends,
                  resumes=resumes)
    rounds = _round_times(report.get("rounds")) if report.get("rounds") else None
    if rounds is not None:
        last = offsets[max(offsets)]
        series["round_time"] = last + np.cumsum(rounds["seconds"] * rounds["rounds"])
        series["merge_seconds"] = rounds["merge_seconds"]
    return series


def _round_times(rounds):
    # a Dask run's rounds: {"seconds", "merge_seconds", "rounds"} arrays, from the list of rounds (one
    # entry each; the slowest merge task of a round) or from the table of an older report
    if isinstance(rounds, dict):
        return _columns(rounds, "rows", "rounds")
    if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
        raise ParameterError("the report's rounds are neither a list of rounds nor a table")
    try:
        seconds = [float(r["wall_seconds"]) for r in rounds]
        merge = [max(map(float, r["merge_seconds"]), default=0.0) for r in rounds]
    except (KeyError, TypeError, ValueError):
        raise ParameterError("the report's rounds lack wall_seconds or merge_seconds") from None
    return {"seconds": np.array(seconds), "merge_seconds": np.array(merge), "rounds": np.ones(len(rounds))}


def smoothed_rate(time, rate, resumes, width=5):
    """Words/s over ``width`` ticks around each (within its segment): the words of those ticks over
    their seconds, so that short ticks weigh less."""
    time, rate = np.asarray(time, dtype=np.float64), np.asarray(rate, dtype=np.float64)
    seconds = np.diff(time, prepend=0.0)   # each tick's rate is over the seconds since the one before
    out = np.empty_like(rate)
    segment = np.searchsorted(np.asarray(resumes, dtype=np.float64), time, side="right")
    for k in range(len(rate)):
        lo, hi = max(0, k - width // 2), min(len(rate), k + width // 2 + 1)
        keep = segment[lo:hi] == segment[k]
        r, s = rate[lo:hi][keep], seconds[lo:hi][keep]
        ok = np.isfinite(r) & np.isfinite(s) & (s > 0)
        out[k] = (r[ok] * s[ok]).sum() / s[ok].sum() if ok.any() else rate[k]
    return out


def _title(report, series):
    s = report.get("settings") or {}
    parts = []
    if s:
        parts.append(f"{'CBOW' if s.get('model') == 'cbow' else 'skip-gram'}, dim {s.get('dim')}, "
                     f"{s.get('epochs')} epochs")
    corpus = report.get("corpus")
    if corpus:
        names = [str(c).replace("\\", "/").rsplit("/", 1)[-1] for c in corpus]
        parts.append(", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else ""))
    if series["resumes"]:   # the seconds of every segment; the report's words/s are its own process's
        parts.append(f"{series['time'].max():.1f} s in {len(series['resumes']) + 1} segments")
    elif report.get("train_seconds") is not None:
        rate = report.get("words_per_sec")
        parts.append(f"{report['train_seconds']:.1f} s" + (f", {rate / 1e3:,.0f}k words/s" if rate else ""))
    return "w2v training: " + "; ".join(parts) if parts else "w2v training"


def training(report, size=DEFAULT_SIZE, dpi=100, title=None):
    """The curves of a training run as a matplotlib Figure.

    Panels, on one axis of training seconds: the running loss of each epoch,
    words/s between ticks, the learning rate, and for a Dask run the merge
    time of each round.  Dotted lines mark the ends of epochs; for a run
    continued from a checkpoint, dashed lines mark where each process took over.

    Parameters
    ----------
    report : dict or w2v.training.lifecycle.RunResult
        A ``--report-json`` report (``json.load`` of the file), or ``Word2Vec.last_train``.
    size : tuple of int or str
        Width and height in pixels.
    dpi : int
    title : str, optional
        By default the model, corpus, time and speed of the run.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    MissingExtraError
        matplotlib is not installed.
    ParameterError
        The report holds no progress ticks.
    """
    fig = new_figure(size, dpi)
    report = as_report(report)
    series = run_series(report)
    panels = [("loss", "running loss"), ("words_per_sec", "words/s"), ("learning_rate", "learning rate")]
    if "merge_seconds" in series:
        panels.append(("merge_seconds", "merge s / round"))
    axes = fig.subplots(len(panels), 1, sharex=True)
    for ax, (key, label) in zip(axes, panels):
        x = series["round_time"] if key == "merge_seconds" else series["time"]
        y = series[key]
        if key == "words_per_sec":   # each tick's rate, light, and over 5 ticks
            y = y / 1e3
            label = "k words/s"
            ax.plot(x, y, color=LINE, linewidth=0.8, alpha=0.35)
            y = smoothed_rate(x, y, series["resumes"])
            if np.isfinite(y).any():   # a rate from 0, the spikes of short ticks cut off
                ax.set_ylim(0, 1.3 * np.nanmax(y))
        ax.plot(x, y, color=LINE, linewidth=1.4, marker="o" if len(x) < 30 else None, markersize=3)
        if key == "merge_seconds":
            ax.set_ylim(bottom=0)
        ax.set_ylabel(label)
        ax.grid(alpha=0.25)
        for t in series["epoch_ends"]:
            ax.axvline(t, color=EPOCH, linestyle=":", linewidth=1)
        for t in series["resumes"]:
            ax.axvline(t, color=RESUME, linestyle="--", linewidth=1.2)
    _annotate(axes[0], series)
    axes[-1].set_xlabel("training seconds" + (" (segments of the resumed run joined)" if series["resumes"] else ""))
    fig.suptitle(title if title is not None else _title(report, series), fontsize=11)
    fig.tight_layout()
    return fig


def _annotate(ax, series):
    """Names of the epochs between the dotted lines, and of the resumed segments, on the top panel."""
    bounds = [series["time"].min()] + list(series["epoch_ends"]) + [series["time"].max()]
    first = int(np.nanmin(series["epoch"]))
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        ax.text((a + b) / 2, 1.0, f"epoch {first + k}", transform=ax.get_xaxis_transform(), ha="center",
                va="bottom", fontsize=8, color="#555555")
    for t in series["resumes"]:
        ax.text(t, 0.02, " resumed", transform=ax.get_xaxis_transform(), color=RESUME, fontsize=8)
