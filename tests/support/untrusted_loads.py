"""Read damaged phrase models, ``fvocab`` files and training reports in a child process, timed, in bounded
memory, with every file the child opens recorded.

Each case is ``(name, path, loader, allowed)``: the loader reads ``path`` (a phrase model folder, a
vocabulary file, a report), and may open only files under the paths ``allowed`` (the folder, or the
paths the user named) among those under the watched folder (the test's scratch folder, which also
holds the files that links out of a case point to).  An audit hook records every ``open``; a blocked
or endless read shows up as a timeout, runaway memory as a MemoryError (the address space is capped).

Run as ``python -m tests.support.untrusted_loads SPEC.json``; :func:`load_in_child` does that.
"""
import json
import os
import subprocess
import sys
import tempfile

from ..conftest import ROOT

#: what each loader does (see :func:`_loader`)
LOADERS = ("phrases", "frozen", "phrases-save", "fvocab", "report")
#: seconds a single case may take before the child gives up on it
CASE_TIMEOUT = 5
#: address space the child may add to what it holds after its imports
HEADROOM = 2 << 30
#: sentences the ``phrases-save`` loader counts before it saves over the damaged folder
SENTENCES = [["new", "york", "is", "big"], ["new", "york", "city"]] * 4


def load_in_child(cases, watched, warmup, timeout=120):
    """Run each ``(name, path, loader, allowed)`` of ``cases`` in one child process.

    Parameters
    ----------
    cases : list of tuple
        ``loader`` one of :data:`LOADERS`; ``allowed`` a list of paths.
    watched : str
        The folder under which an open outside ``allowed`` is reported.
    warmup : list of tuple
        ``(path, loader, allowed)`` run first, untimed (imports, compilation).
    timeout : float
        Seconds for the whole child.

    Returns
    -------
    dict
        ``baseline_mb`` and ``results``: per case ``name``, ``loader``, ``outcome`` (``"ok"`` or the
        exception's class), ``w2v_error``, ``message``, ``seconds``, ``peak_mb`` and ``escaped``
        (the watched files it opened outside ``allowed``).
    """
    spec = {"cases": [[str(n), str(p), loader, [str(a) for a in allowed]] for n, p, loader, allowed in cases],
            "watched": str(watched), "warmup": [[str(p), loader, [str(a) for a in allowed]]
                                                for p, loader, allowed in warmup]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run([sys.executable, "-m", "tests.support.untrusted_loads", f.name], capture_output=True,
                              text=True, cwd=str(ROOT), env=env, timeout=timeout)
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_SAVED = {}   # the model the phrases-save loader saves


def _loader(name, path):
    # in the child only: the parent imports none of these
    from w2v.formats.files import read_json
    from w2v.phrases.model import FrozenPhrases, Phrases, load_phrases
    from w2v.plot.curves import run_series
    from w2v.vectors.keyed import KeyedVectors

    if name == "phrases":
        return lambda: load_phrases(path)
    if name == "frozen":
        return lambda: FrozenPhrases.load(path)
    if name == "phrases-save":   # one model, counted once: the case is the save over the folder
        if "model" not in _SAVED:
            _SAVED["model"] = Phrases(SENTENCES, min_count=1, threshold=0.1)
        return lambda: _SAVED["model"].save(path)
    if name == "fvocab":   # the vectors beside the vocabulary file: vec.txt
        return lambda: KeyedVectors.load_word2vec_format(os.path.join(os.path.dirname(path), "vec.txt"), fvocab=path)
    if name == "report":   # what w2v plot-run reads and checks before it draws
        return lambda: run_series(read_json(path, "no such file", inside=False))
    raise ValueError(name)


def _peak_mb():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cap_address_space():
    import resource

    with open("/proc/self/statm") as f:
        held = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (held + HEADROOM, resource.getrlimit(resource.RLIMIT_AS)[1]))


class _Opens:
    """The files opened for reading while recording (an audit hook sees every ``open`` of Python code;
    a save's writes into its own temporary folder beside the target are not reads, nor is opening a
    folder to fsync it)."""

    def __init__(self):
        self.paths = None

    def hook(self, event, args):
        if event != "open" or self.paths is None or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        path, mode, flags = args
        if (mode is None or "r" in mode or "+" in mode) and not flags & os.O_WRONLY and not os.path.isdir(path):
            self.paths.append(os.fsdecode(path))   # a folder is opened to fsync it, not read


def _escaped(opened, watched, allowed):
    """The files of ``opened`` under ``watched`` but under none of ``allowed`` (links resolved)."""
    roots = [os.path.realpath(a) for a in allowed]
    out = []
    for path in opened:
        real = os.path.realpath(path)
        if real.startswith(watched + os.sep) and not any(real == r or real.startswith(r + os.sep) for r in roots):
            out.append(real)
    return out


def _run_case(call, opens):
    import signal
    import time

    from w2v import W2VError

    start = time.perf_counter()
    opens.paths = []
    try:
        try:
            signal.alarm(CASE_TIMEOUT)
            call()
        finally:
            signal.alarm(0)
        outcome, is_w2v, message = "ok", False, ""
    except BaseException as exc:   # noqa: BLE001 - the report says what it was
        outcome, is_w2v, message = type(exc).__name__, isinstance(exc, W2VError), str(exc)[:300]
    seconds = time.perf_counter() - start
    opened, opens.paths = opens.paths, None
    return {"outcome": outcome, "w2v_error": is_w2v, "message": message, "seconds": seconds}, opened


def _main(spec_path):
    import signal

    import w2v.phrases.model  # noqa: F401 - imports (numba included) before the cap and the baseline
    import w2v.plot.curves  # noqa: F401
    import w2v.vectors.keyed  # noqa: F401

    with open(spec_path) as f:
        spec = json.load(f)
    watched = os.path.realpath(spec["watched"])
    opens = _Opens()
    sys.addaudithook(opens.hook)
    for path, loader, _ in spec["warmup"]:
        _loader(loader, path)()
    _cap_address_space()
    baseline = _peak_mb()

    def timed_out(signum, frame):
        raise TimeoutError(f"still reading after {CASE_TIMEOUT} s")

    signal.signal(signal.SIGALRM, timed_out)
    results = []
    for name, path, loader, allowed in spec["cases"]:
        result, opened = _run_case(_loader(loader, path), opens)
        results.append({"name": name, "loader": loader, **result, "peak_mb": _peak_mb(),
                        "escaped": _escaped(opened, watched, allowed)})
    print(json.dumps({"baseline_mb": baseline, "results": results}))


if __name__ == "__main__":
    _main(sys.argv[1])
