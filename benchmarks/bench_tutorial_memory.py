"""Peak memory of gensim 4's Word2Vec tutorial: gensim against w2v, and where w2v's memory goes.

The tutorial (gensim's ``auto_examples/tutorials/run_word2vec``, its own-model
part): ``MyCorpus`` yields ``gensim.utils.simple_preprocess`` of each line of
the Lee corpus that gensim ships as test data (``lee_background.cor``, 300
documents, 58,152 tokens); ``Word2Vec(sentences=MyCorpus())`` builds and
trains; ``wv['king']``, ``most_similar`` and ``doesnt_match``; ``save`` into a
``tempfile.NamedTemporaryFile`` and ``load``; online training with
``build_vocab(more, update=True)`` and ``train``; a second model with
``compute_loss=True``.  The script is the same for both systems but for its
import line.

Each run is a fresh process; its peak RSS is ``ru_maxrss``.  Runs are
interleaved (gensim, w2v, gensim, ...) and the table gives the median of
``--repeats``.  Then one more w2v process records the resident memory after
each step, with the parts that come from Numba measured apart (``import
numba``; Numba's first call of a compiled function, a trivial one cached on
disk beforehand), and a last one the Python heap at each step and its peak
within the step (``tracemalloc``, which sees NumPy's arrays too), to tell
Python objects and arrays from native memory.

Example::

    python benchmarks/bench_tutorial_memory.py --repeats 3
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import git_describe, machine_info, median  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

IMPORTS = {"gensim": "from gensim.models import Word2Vec", "w2v": "from w2v import Word2Vec"}

# the child: the tutorial, with marks that read /proc/self/status (and, with --trace, tracemalloc)
CHILD = r'''
import json, os, resource, sys, tempfile
TRACE = "--trace" in sys.argv
NUMBA_APART = "--numba-apart" in sys.argv
if TRACE:
    import tracemalloc
    tracemalloc.start()
steps = []

def mark(name):
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f)
    heap, heap_peak = tracemalloc.get_traced_memory() if TRACE else (0, 0)
    if TRACE:
        tracemalloc.reset_peak()
    steps.append([name, int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024,
                  heap / 2 ** 20, heap_peak / 2 ** 20])

mark("python")
import numpy
from gensim.test.utils import datapath
from gensim import utils
mark("numpy, gensim.utils (the tutorial's imports)")
if NUMBA_APART:
    import numba
    mark("import numba (llvmlite's LLVM, Numba's modules)")
    sys.path.insert(0, os.environ["TRIVIAL_DIR"])
    from trivial_kernel import plus_one
    plus_one(1)
    mark("Numba's first call (CPU target, typing, JIT), a trivial cached function")
IMPORT_LINE
mark("import Word2Vec")


class MyCorpus:
    """An iterator that yields sentences (lists of str)."""

    def __iter__(self):
        corpus_path = datapath("lee_background.cor")
        for line in open(corpus_path):
            yield utils.simple_preprocess(line)


sentences = MyCorpus()
model = Word2Vec(sentences=sentences)
mark("build and train (Word2Vec(sentences=MyCorpus()))")
vec_king = model.wv["king"]
model.wv.most_similar(positive=["police", "fire"], topn=5)
model.wv.doesnt_match(["fire", "water", "land", "sea", "air", "car"])
mark("wv['king'], most_similar, doesnt_match")
with tempfile.NamedTemporaryFile(prefix="gensim-model-", delete=False) as tmp:
    temporary_filepath = tmp.name
    model.save(temporary_filepath)
    new_model = Word2Vec.load(temporary_filepath)
mark("save to a NamedTemporaryFile, load")
model = Word2Vec.load(temporary_filepath)
more_sentences = [["Advanced", "users", "can", "load", "a", "model", "and", "continue", "training", "it", "with",
                   "more", "sentences"]]
model.build_vocab(more_sentences, update=True)
model.train(more_sentences, total_examples=model.corpus_count, epochs=model.epochs)
os.unlink(temporary_filepath)
mark("online training")
model_with_loss = Word2Vec(sentences, min_count=1, compute_loss=True, hs=0, sg=1, seed=42)
training_loss = model_with_loss.get_latest_training_loss()
mark("a model with compute_loss=True")
print(json.dumps({"steps": steps, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''

TRIVIAL = '''from numba import njit


@njit(cache=True, nogil=True)
def plus_one(x):
    return x + 1
'''


def run_child(system, *flags, env=None):
    """Run the tutorial for ``system`` in a fresh process; its JSON report."""
    source = CHILD.replace("IMPORT_LINE", IMPORTS[system])
    run = subprocess.run([sys.executable, "-c", source, *flags], capture_output=True, text=True,
                         env={**os.environ, **(env or {})}, timeout=900)
    if run.returncode != 0:
        raise SystemExit(f"{system} {' '.join(flags)} failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def breakdown(steps, heap_steps):
    """Rows ``(step, RSS after, RSS added, peak so far, Python heap added, Python heap's peak above its
    start within the step)`` in MiB."""
    rows, last_rss, last_heap = [], 0.0, 0.0
    for (name, rss, hwm, _, _), (_, _, _, heap, heap_peak) in zip(steps, heap_steps):
        rows.append([name, round(rss, 1), round(rss - last_rss, 1), round(hwm, 1), round(heap - last_heap, 1),
                     round(heap_peak - last_heap, 1)])
        last_rss, last_heap = rss, heap
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tag", default="lee")
    args = ap.parse_args(argv)
    peaks = {"gensim": [], "w2v": []}
    with tempfile.TemporaryDirectory() as scratch:
        trivial_env = {"TRIVIAL_DIR": scratch}
        Path(scratch, "trivial_kernel.py").write_text(TRIVIAL)
        run_child("w2v", "--numba-apart", env=trivial_env)   # caches the trivial function (and w2v's kernels)
        for _ in range(args.repeats):
            for system in ("gensim", "w2v"):
                peaks[system].append(run_child(system)["peak_mib"])
        steps = run_child("w2v", "--numba-apart", env=trivial_env)["steps"]
        heap = run_child("w2v", "--numba-apart", "--trace", env=trivial_env)["steps"]
    result = {"peaks_mib": peaks, "median_peak_mib": {k: median(v) for k, v in peaks.items()},
              "w2v_steps": breakdown(steps, heap), "machine": machine_info(), "git": git_describe(),
              "date": time.strftime("%Y-%m-%d"), "command": "python3 benchmarks/bench_tutorial_memory.py "
                                                            + " ".join(argv or sys.argv[1:])}
    lines = ["| system | peak RSS MiB (median) | runs |", "|---|---:|---|"]
    for system, values in peaks.items():
        lines.append(f"| {system} | {median(values):.0f} | {', '.join(f'{v:.0f}' for v in values)} |")
    lines += ["", "| w2v step | RSS after | added | peak so far | Python heap added | Python heap's peak in the step |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {name} | {rss} | {added:+} | {hwm} | {heap:+} | {peak:+} |"
              for name, rss, added, hwm, heap, peak in result["w2v_steps"]]
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / f"tutorial-memory-{time.strftime('%Y%m%d-%H%M%S')}-{args.tag}"
    stem.with_suffix(".md").write_text(text + "\n")
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {stem}.md and .json", file=sys.stderr)


if __name__ == "__main__":
    main()
