"""Phrase detection: ``w2v phrases`` against word2vec.c's ``word2phrase`` and gensim's ``Phrases``.

Each system learns its phrases from the corpus and writes the corpus with the
phrases joined, in a fresh process timed by ``/usr/bin/time -v`` (wall time
and peak RSS):

* ``w2v-word2vec``: ``w2v phrases CORPUS -o OUT`` (word2phrase's score,
  min_count 5, threshold 100), against ``word2phrase`` (the binary PyPI's
  ``word2vec`` package builds, same settings; it holds file names in 60 bytes,
  so it runs in a scratch folder on a link to the corpus);
* ``w2v-gensim``: ``w2v phrases --scoring gensim --threshold 10`` against
  ``gensim``: ``Phrases(LineSentence(CORPUS))`` (its defaults: min_count 5,
  threshold 10), then ``FrozenPhrases`` applied to every sentence, written
  one sentence per line.

w2v's modules are byte-compiled first, as the peers' are by ``pip install``.
Runs are interleaved (one of each system per repeat), each after ``os.sync()``
(outside its time), so that the previous run's unsynced output is not written
back during it.  The table gives the medians and the ratios of the medians, and
says whether each pair wrote the same tokens.  A markdown table is printed and written, with a JSON file, to
``benchmarks/results/``.

Example::

    python benchmarks/bench_phrases.py /work/bench-data/wiki17m.txt --repeats 3
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import byte_compile, git_describe, machine_info, median, run_timed, which_real  # noqa: E402

GENSIM = r"""
import sys
from gensim.models.phrases import Phrases
from gensim.models.word2vec import LineSentence
sentences = LineSentence(sys.argv[1])
frozen = Phrases(sentences, min_count=5, threshold=10.0).freeze()
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for s in frozen[sentences]:
        out.write(" ".join(s) + "\n")
"""


def commands(corpus, scratch, w2v, word2phrase, threads):
    """``{system: (argv, output, cwd)}``."""
    out = {name: str(Path(scratch) / f"{name}.txt") for name in ("w2v-word2vec", "w2v-gensim", "gensim")}
    thr = ["--threads", str(threads)] if threads else []
    return {
        "w2v-word2vec": ([w2v, "phrases", corpus, "-o", out["w2v-word2vec"], "-q", *thr], out["w2v-word2vec"], None),
        "word2phrase": ([word2phrase, "-train", "in.txt", "-output", "w2p.txt", "-debug", "0"],
                        str(Path(scratch) / "w2p.txt"), scratch),
        "w2v-gensim": ([w2v, "phrases", corpus, "-o", out["w2v-gensim"], "--scoring", "gensim", "--threshold", "10",
                        "-q", *thr], out["w2v-gensim"], None),
        "gensim": ([sys.executable, "-c", GENSIM, corpus, out["gensim"]], out["gensim"], None),
    }


def _tokens(path, cut):
    with open(path, "rb") as f:
        for line in f:
            for t in line.split():
                yield t[:58] if cut else t


def same_tokens(a, b, cut=False):
    """Whether two files hold the same whitespace tokens (gensim writes a long line in pieces of
    10,000 words); ``cut``: ``a``'s cut to 58 bytes each, as word2phrase cuts its words."""
    missing = object()
    return all(x == y for x, y in itertools.zip_longest(_tokens(a, cut), _tokens(b, False), fillvalue=missing))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="w2v's threads (0: its default, the cores available)")
    ap.add_argument("--systems", nargs="+", default=["w2v-word2vec", "word2phrase", "w2v-gensim", "gensim"])
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    corpus = str(Path(args.corpus).resolve())
    w2v, word2phrase = which_real("w2v"), which_real("word2phrase")
    if "word2phrase" in args.systems and word2phrase is None:
        sys.exit("bench_phrases: word2phrase not found (pip install word2vec builds it)")
    scratch = tempfile.mkdtemp(prefix="bench-phrases-")
    os.symlink(corpus, Path(scratch) / "in.txt")
    cmds = commands(corpus, scratch, w2v, word2phrase, args.threads)
    byte_compile("w2v", "w2v_cli")   # the peers run from compiled bytecode too (installed by pip)
    info = machine_info()
    load_before = os.getloadavg()
    runs = []
    for rep in range(args.repeats):
        for name in args.systems:
            argv_, _, cwd = cmds[name]
            # the last run's output (100 MB; the peers do not sync it) is written back before this
            # run starts, not during it: each run is timed with only its own disk writes
            os.sync()
            r = run_timed(argv_, cwd=cwd, time_report=Path(scratch) / "time.txt")
            if r["rc"] != 0:
                sys.exit(f"bench_phrases: {name} failed ({r['rc']}): {r['output_tail'][-2000:]}")
            runs.append({"system": name, "repeat": rep, "wall_s": r["wall_s"], "max_rss_mib": r["max_rss_mib"],
                         "user_s": r.get("user_s"), "sys_s": r.get("sys_s")})
            print(f"[{rep + 1}/{args.repeats}] {name}: {r['wall_s']:.2f} s, {r['max_rss_mib']:.0f} MiB",
                  file=sys.stderr)
    load_after = os.getloadavg()
    med = {name: {k: median([r[k] for r in runs if r["system"] == name]) for k in ("wall_s", "max_rss_mib")}
           for name in args.systems}
    pairs = [("w2v-word2vec", "word2phrase", True), ("w2v-gensim", "gensim", False)]
    same = {a: same_tokens(cmds[a][1], cmds[b][1], cut=cut) for a, b, cut in pairs
            if a in med and b in med}
    rows = []
    for a, b, _ in pairs:
        for name in (a, b):
            if name not in med:
                continue
            m = med[name]
            ratio = ""
            if name == a and b in med:
                ratio = (f"{med[b]['wall_s'] / m['wall_s']:.1f}x faster, RSS "
                         f"{m['max_rss_mib'] / med[b]['max_rss_mib']:.2f} of {b}'s; "
                         f"same tokens: {'yes' if same[a] else 'NO'}")
            rows.append(f"| {name} | {m['wall_s']:.2f} | {m['max_rss_mib']:.0f} | {ratio} |")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    tag = Path(corpus).stem
    header = (f"{info['cpu_model']}, {info['logical_cpus']} CPUs, {time.strftime('%Y-%m-%d')}, median of "
              f"{args.repeats}, load average {load_before[0]:.2f} before / {load_after[0]:.2f} after, {git_describe()}")
    table = "\n".join([header, "", "| system | wall s | peak RSS MiB | w2v against it |", "|---|---:|---:|---|", *rows])
    print(table)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"phrases-{stamp}-{tag}.md").write_text(
        f"```sh\npython3 benchmarks/bench_phrases.py {args.corpus} --repeats {args.repeats}\n```\n\n{table}\n")
    (out / f"phrases-{stamp}-{tag}.json").write_text(json.dumps(
        {"corpus": corpus, "machine": info, "load_before": load_before, "load_after": load_after, "runs": runs,
         "medians": med, "same_tokens": same, "commands": {k: v[0] for k, v in cmds.items()}}, indent=1))
    for name in args.systems:
        try:
            os.unlink(cmds[name][1])
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
