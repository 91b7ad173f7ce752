"""Read damaged full models in a child process with ``Word2Vec.load``, ``w2v info`` and ``w2v train --resume``,
recording every file each one opens.

As :mod:`tests.support.model_loads` (an alarm per case, the child's address space capped, its peak
memory after each case), with the CLI's readers run in the child through ``main(...,
standalone_mode=False)``, so that the exception behind a one-line error is seen: a case is
*accepted* when it succeeds or ends in a :class:`w2v.W2VError` or ``FileNotFoundError`` (behind the
CLI's one line too), or in the CLI's own one-line error.  An audit hook (``sys.addaudithook``)
records the path of every ``open`` event while a case runs.

Run as ``python -m tests.support.untrusted_runs SPEC.json``; :func:`run_in_child` does that.
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

from ..conftest import ROOT
from .model_loads import CASE_TIMEOUT, _cap_address_space, _peak_mb

#: what each reader runs
READERS = ("model", "info", "resume")


def run_in_child(cases, warmup, timeout=300):
    """Run each ``(name, reader, path, output)`` of ``cases`` in one child process.

    Parameters
    ----------
    cases : list of tuple
        ``reader`` is one of :data:`READERS`; ``output`` is the ``-o`` of ``resume``.
    warmup : tuple
        ``(path, output)``: a model every reader reads first, untimed (imports, kernels loaded).
    timeout : float
        Seconds for the whole child.

    Returns
    -------
    dict
        ``baseline_mb`` and ``results``: per case ``name``, ``reader``, ``outcome`` (``"ok"``, the
        exception's class name, or that of the exception behind a one-line CLI error), ``accepted``,
        ``message``, ``seconds``, ``peak_mb`` and ``opened`` (``[absolute path, path with links resolved]`` of
        each file it opened).
    """
    spec = {"cases": [list(map(str, c)) for c in cases], "warmup": list(map(str, warmup))}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run([sys.executable, "-m", "tests.support.untrusted_runs", f.name], capture_output=True,
                              text=True, cwd=str(ROOT), env=env, timeout=timeout)
    finally:
        os.unlink(f.name)
    # a crash (a kernel reading out of bounds) ends the child: the last case it began is the last line of stderr
    assert proc.returncode == 0, f"the child ended with status {proc.returncode}: {proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _read(reader, path, output):
    """Run ``reader`` on ``path``; raise what it raised (a ClickException for a CLI error)."""
    if reader == "model":
        from w2v import Word2Vec

        Word2Vec.load(path)
        return
    from w2v_cli.main import main

    args = ["info", path] if reader == "info" else ["train", "--resume", path, "-o", output, "-q"]
    with contextlib.redirect_stdout(io.StringIO()):
        main.main(args, prog_name="w2v", standalone_mode=False)


def _outcome(exc):
    """``(outcome, accepted, message)`` of what a reader raised (None: it succeeded)."""
    import click

    from w2v import W2VError

    if exc is None:
        return "ok", True, ""
    message = " ".join(str(getattr(exc, "message", exc)).split())[:300]
    if isinstance(exc, click.ClickException):   # one line; the library's exception behind it, if any
        cause = exc.__context__
        if cause is None:
            return "cli-error", True, message
        exc = cause
    return type(exc).__name__, isinstance(exc, (W2VError, FileNotFoundError)), message


def _run_case(reader, path, output, opened, timeout=CASE_TIMEOUT):
    import signal
    import time

    start = time.perf_counter()
    opened.clear()
    opened.append(None)   # recording
    try:
        try:
            signal.alarm(timeout)   # 0: none (the warm-up, which may compile the kernels)
            _read(reader, path, output)
        finally:
            signal.alarm(0)
        raised = None
    except BaseException as exc:   # noqa: BLE001 - the report says what it was
        raised = exc
    seconds = time.perf_counter() - start
    paths = opened[1:]
    opened[:] = []
    outcome, accepted, message = _outcome(raised)
    return {"outcome": outcome, "accepted": accepted, "message": message, "seconds": seconds,
            "opened": sorted({(os.path.abspath(p), os.path.realpath(p)) for p in paths})}


def _main(spec_path):
    import signal

    import w2v.model.word2vec  # noqa: F401 - imports (numba included) before the cap and the baseline
    import w2v_cli.main  # noqa: F401

    with open(spec_path) as f:
        spec = json.load(f)
    opened = []

    def audit(event, args):
        if event == "open" and opened and isinstance(args[0], (str, bytes)):
            opened.append(os.fsdecode(args[0]))

    sys.addaudithook(audit)
    path, output = spec["warmup"]
    for reader in READERS:
        _run_case(reader, path, output, opened, timeout=0)
    _cap_address_space()
    baseline = _peak_mb()

    def timed_out(signum, frame):
        raise TimeoutError(f"still reading after {CASE_TIMEOUT} s")

    signal.signal(signal.SIGALRM, timed_out)
    results = []
    for name, reader, path, output in spec["cases"]:
        sys.stderr.write(f"reading {name} with {reader}\n")
        sys.stderr.flush()
        result = _run_case(reader, path, output, opened)
        results.append({"name": name, "reader": reader, **result, "peak_mb": _peak_mb()})
    print(json.dumps({"baseline_mb": baseline, "results": results}))


if __name__ == "__main__":
    _main(sys.argv[1])
