"""Training with phrases: ``w2v train --phrases auto`` against word2phrase + word2vec.c, and against no phrases.

Three pipelines on one corpus, each in fresh processes timed by ``/usr/bin/time -v``:

* ``w2v``: ``w2v train CORPUS`` (no phrases);
* ``w2v-phrases``: ``w2v train CORPUS --phrases auto`` (two passes of word2phrase's
  defaults, min_count 5 and threshold 100, joined on the id stream: no phrased file);
* ``word2phrase+word2vec``: ``word2phrase`` run twice with the same defaults
  (the second pass on the first one's output, as word2vec's demo scripts do), then
  ``word2vec`` on the phrased file; its wall time is the sum of the three commands.

Every pipeline trains skip-gram with the same settings (dim 100, window 5,
negative 5, sample 1e-3, min_count 5, alpha 0.025).  The two w2v pipelines run
``--repeats`` times, interleaved, and their wall times are compared by the ratio
of the medians; the word2vec.c pipeline runs once.  The vectors of each are scored
by gensim's ``evaluate_word_analogies`` (case-insensitive, restrict_vocab 300000)
on Mikolov's phrase analogies (``data/eval/questions-phrases.txt``): questions
covered, accuracy, and the accuracy of each on the questions both pipelines cover.
A markdown table is printed and written, with a JSON file, to ``benchmarks/results/``.

Example::

    python benchmarks/bench_phrase_training.py wiki69m-lines.txt --threads 2 --epochs 1 --repeats 3
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import git_describe, machine_info, median, run_timed, which_real  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = REPO / "data" / "eval" / "questions-phrases.txt"


def w2v_command(w2v, corpus, out, args, phrases):
    cmd = [w2v, "train", corpus, "-o", out, "--model", "sg", "--dim", "100", "--window", "5", "--negative", "5",
           "--sample", "1e-3", "--min-count", "5", "--alpha", "0.025", "--epochs", str(args.epochs),
           "--threads", str(args.threads), "--seed", "1", "-q"]
    return cmd + (["--phrases", "auto"] if phrases else [])


def word2vec_c_commands(word2phrase, word2vec, scratch, args):
    """The word2phrase passes and the word2vec command, run in ``scratch`` (it holds ``in.txt``)."""
    return [
        [word2phrase, "-train", "in.txt", "-output", "p1.txt", "-min-count", "5", "-threshold", "100", "-debug", "0"],
        [word2phrase, "-train", "p1.txt", "-output", "p2.txt", "-min-count", "5", "-threshold", "100", "-debug", "0"],
        [word2vec, "-train", "p2.txt", "-output", "c.bin", "-cbow", "0", "-size", "100", "-window", "5",
         "-negative", "5", "-hs", "0", "-sample", "1e-3", "-min-count", "5", "-alpha", "0.025",
         "-iter", str(args.epochs), "-threads", str(args.threads), "-binary", "1"],
    ]


def timed(cmd, scratch, cwd=None):
    r = run_timed(cmd, cwd=cwd, time_report=Path(scratch) / "time.txt")
    if r["rc"] != 0:
        sys.exit(f"bench_phrase_training: {cmd[0]} failed ({r['rc']}): {r['output_tail'][-2000:]}")
    return r


def phrase_analogies(path):
    """``(covered questions as a set, correct ones as a set)`` by gensim's evaluation."""
    from gensim.models import KeyedVectors
    kv = KeyedVectors.load_word2vec_format(str(path), binary=True, unicode_errors="ignore")
    _, sections = kv.evaluate_word_analogies(str(QUESTIONS), restrict_vocab=300000, case_insensitive=True)
    total = next(s for s in sections if s["section"] == "Total accuracy")
    correct = set(total["correct"])
    return correct | set(total["incorrect"]), correct


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    corpus = str(Path(args.corpus).resolve())
    tools = {name: which_real(name) for name in ("w2v", "word2phrase", "word2vec")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        sys.exit(f"bench_phrase_training: not found: {', '.join(missing)} (pip install word2vec builds word2vec.c)")
    scratch = tempfile.mkdtemp(prefix="bench-phrase-training-")
    os.symlink(corpus, Path(scratch) / "in.txt")
    info, load_before = machine_info(), os.getloadavg()
    walls = {"w2v": [], "w2v-phrases": []}
    outs = {"w2v": Path(scratch) / "plain.bin", "w2v-phrases": Path(scratch) / "phrases.bin"}
    for rep in range(args.repeats):
        for name in walls:
            r = timed(w2v_command(tools["w2v"], corpus, outs[name], args, name == "w2v-phrases"), scratch)
            walls[name].append(r["wall_s"])
            print(f"[{rep + 1}/{args.repeats}] {name}: {r['wall_s']:.1f} s", file=sys.stderr)
    c_walls = [timed(cmd, scratch, cwd=scratch)["wall_s"]
               for cmd in word2vec_c_commands(tools["word2phrase"], tools["word2vec"], scratch, args)]
    print(f"word2phrase x2 + word2vec: {' + '.join(f'{w:.1f}' for w in c_walls)} s", file=sys.stderr)
    outs["word2phrase+word2vec"] = Path(scratch) / "c.bin"
    scores = {name: phrase_analogies(path) for name, path in outs.items()}
    both = scores["w2v-phrases"][0] & scores["word2phrase+word2vec"][0]
    load_after = os.getloadavg()
    wall = {name: median(v) for name, v in walls.items()}
    wall["word2phrase+word2vec"] = sum(c_walls)
    rows = []
    for name in outs:
        covered, correct = scores[name]
        on_both = f"{100 * len(correct & both) / len(both):.1f}" if both and name != "w2v" else ""
        acc = f"{100 * len(correct) / len(covered):.1f}" if covered else "-"
        rows.append(f"| {name} | {wall[name]:.1f} | {wall[name] / wall['w2v']:.2f} | {len(covered):,} | {acc} | "
                    f"{on_both} |")
    header = (f"{info['cpu_model']}, {info['logical_cpus']} CPUs, {time.strftime('%Y-%m-%d')}, skip-gram, "
              f"{args.epochs} epoch(s), {args.threads} threads; w2v: median of {args.repeats}; load average "
              f"{load_before[0]:.2f} before / {load_after[0]:.2f} after; {git_describe()}")
    table = "\n".join([header, "", f"| pipeline | wall s | ÷ w2v without phrases | phrase questions covered "
                       f"(of 3,218) | accuracy % | accuracy % on the {len(both):,} both cover |",
                       "|---|---:|---:|---:|---:|---:|", *rows])
    print(table)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stamp, tag = time.strftime("%Y%m%d-%H%M%S"), Path(corpus).stem
    command = (f"python3 benchmarks/bench_phrase_training.py {args.corpus} --threads {args.threads} "
               f"--epochs {args.epochs} --repeats {args.repeats}")
    (out / f"phrase-training-{stamp}-{tag}.md").write_text(f"```sh\n{command}\n```\n\n{table}\n")
    (out / f"phrase-training-{stamp}-{tag}.json").write_text(json.dumps(
        {"corpus": corpus, "machine": info, "load_before": load_before, "load_after": load_after,
         "w2v_walls": walls, "word2vec_c_walls": c_walls,
         "covered": {k: len(v[0]) for k, v in scores.items()}, "correct": {k: len(v[1]) for k, v in scores.items()},
         "covered_by_both": len(both)}, indent=1))
    for path in Path(scratch).iterdir():
        path.unlink()
    os.rmdir(scratch)


if __name__ == "__main__":
    main()
