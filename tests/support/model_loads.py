"""Load model directories in a child process, timing each load and watching the child's memory.

A reader that blocks (a named pipe) or reads without end (``/dev/zero``) must not hang or exhaust
the test run: each load runs under an alarm, and the child's address space is capped, so such a
regression shows up as a timeout or a MemoryError in the report.

Run as ``python -m tests.support.model_loads SPEC.json``; :func:`load_in_child` does that and returns the
report.
"""
import json
import os
import subprocess
import sys
import tempfile

from ..conftest import ROOT

#: what each loader calls
LOADERS = ("load", "inspect", "model", "is_native")
#: seconds a single load may take before the child gives up on it
CASE_TIMEOUT = 5
#: address space the child may add to what it holds after its imports
HEADROOM = 2 << 30


def load_in_child(cases, warmup=None, timeout=300):
    """Run each ``(name, path, loader)`` of ``cases`` in one child process.

    Parameters
    ----------
    cases : list of tuple
        ``loader`` is one of :data:`LOADERS`.
    warmup : tuple, optional
        ``(path, loaders)`` loaded first, untimed, so that imports and first calls are not measured.
    timeout : float
        Seconds for the whole child.

    Returns
    -------
    dict
        ``baseline_mb`` (the child's peak resident memory after the warm-up) and ``results``: one
        dict per case with ``name``, ``loader``, ``outcome`` (``"ok"`` or the exception's class
        name), ``w2v_error`` (a :class:`w2v.W2VError`), ``message``, ``seconds`` and ``peak_mb``
        (the child's peak resident memory after it).
    """
    spec = {"cases": [list(map(str, c)) for c in cases],
            "warmup": None if warmup is None else [str(warmup[0]), list(warmup[1])]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run([sys.executable, "-m", "tests.support.model_loads", f.name], capture_output=True,
                              text=True, cwd=str(ROOT), env=env, timeout=timeout)
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _loader(name):
    import w2v
    from w2v import formats

    if name == "load":
        return w2v.load
    if name == "inspect":
        return formats.inspect
    if name == "model":
        return w2v.Word2Vec.load
    if name == "is_native":
        return formats.is_native_dir
    raise ValueError(name)


def _peak_mb():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cap_address_space():
    import resource

    with open("/proc/self/statm") as f:
        held = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (held + HEADROOM, resource.getrlimit(resource.RLIMIT_AS)[1]))


def _run_case(path, loader):
    import signal
    import time

    from w2v import W2VError

    start = time.perf_counter()
    try:
        try:
            signal.alarm(CASE_TIMEOUT)
            _loader(loader)(path)
        finally:
            signal.alarm(0)
        outcome, is_w2v, message = "ok", False, ""
    except BaseException as exc:   # noqa: BLE001 - the report says what it was
        outcome, is_w2v, message = type(exc).__name__, isinstance(exc, W2VError), str(exc)[:300]
    return {"outcome": outcome, "w2v_error": is_w2v, "message": message,
            "seconds": time.perf_counter() - start}


def _main(spec_path):
    import signal

    import w2v.model.word2vec  # noqa: F401 - imports (numba included) before the cap and the baseline

    with open(spec_path) as f:
        spec = json.load(f)
    if spec["warmup"]:
        path, loaders = spec["warmup"]
        for loader in loaders:
            _loader(loader)(path)
    _cap_address_space()
    baseline = _peak_mb()

    def timed_out(signum, frame):
        raise TimeoutError(f"still loading after {CASE_TIMEOUT} s")

    signal.signal(signal.SIGALRM, timed_out)
    results = []
    for name, path, loader in spec["cases"]:
        result = _run_case(path, loader)
        results.append({"name": name, "loader": loader, **result, "peak_mb": _peak_mb()})
    print(json.dumps({"baseline_mb": baseline, "results": results}))


if __name__ == "__main__":
    _main(sys.argv[1])
