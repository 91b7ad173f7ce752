"""Run a script written for gensim twice, as it is and with its one marked import line changed to w2v's:
the harness of the tests that check gensim code runs on w2v unchanged (tests/*/test_gensim_usage.py)."""
import json
import lzma
import subprocess
import sys


def bundled_head(bundled, path, lines):
    """Write the first ``lines`` lines of the bundled (xz) corpus ``bundled`` to ``path``; return ``path``."""
    with lzma.open(bundled, "rt", encoding="utf-8") as src, open(path, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= lines:
                break
            dst.write(line)
    return path


def outcomes_on_both(script, gensim_import, w2v_import, tmp, args, cwd, timeout=600):
    """The JSON object each run of ``script`` prints last: ``{"gensim": ..., "w2v": ...}``.

    ``script`` must hold ``gensim_import`` exactly once; the w2v run has it replaced by
    ``w2v_import``. Each run gets ``args`` and then its own empty work folder.
    """
    text = script.read_text(encoding="utf-8")
    assert text.count(gensim_import) == 1
    results = {}
    for name, source in (("gensim", text), ("w2v", text.replace(gensim_import, w2v_import))):
        copy = tmp / f"{script.stem}_{name}.py"
        copy.write_text(source, encoding="utf-8")
        work = tmp / f"work-{name}"
        work.mkdir()
        run = subprocess.run([sys.executable, str(copy), *map(str, args), str(work)], capture_output=True,
                             text=True, cwd=cwd, timeout=timeout)
        assert run.returncode == 0, run.stderr[-3000:]
        results[name] = json.loads(run.stdout.strip().splitlines()[-1])
    return results
