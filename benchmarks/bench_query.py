"""Query benchmark: load time and ``most_similar`` throughput, w2v against gensim, in one run.

For each model (a random one generated into a temporary directory, and
optionally a trained one given by path) the same vectors are written as a
word2vec binary file, a w2v native directory and a gensim ``.kv`` file, then:

* load time: w2v native (memory-mapped), w2v word2vec binary, gensim's
  ``load_word2vec_format`` and gensim's own ``KeyedVectors.load(mmap='r')``;
* first query after loading (norms, word index: what a CLI call pays);
* single ``most_similar(word, topn=10)`` queries per second;
* batch: w2v ``most_similar_batch`` against gensim's ``most_similar`` in a
  loop (gensim has no batch call), same words, queries per second.

Every figure is the median of ``--repeats`` runs (warm page cache), the two
systems' runs interleaved so that both see the same background load.  Ratios
are w2v/gensim measured in the same run, oriented so that > 1 means w2v is
better (speed ratio: gensim seconds / w2v seconds; throughput ratio: w2v q/s /
gensim q/s).  A markdown table is printed and written with a JSON file to
``benchmarks/results/``.

Examples::

    python benchmarks/bench_query.py                          # 1M x 100 random model
    python benchmarks/bench_query.py --random-size 200000     # quicker plumbing check
    python benchmarks/bench_query.py --model wiki.bin --no-random
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None,
                    help="a trained model to benchmark too (word2vec binary/text file or native directory)")
    ap.add_argument("--no-random", action="store_true", help="skip the random model")
    ap.add_argument("--random-size", type=int, default=1_000_000, help="words of the random model")
    ap.add_argument("--dim", type=int, default=100, help="dimension of the random model")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--single", type=int, default=100, help="single most_similar queries per repeat")
    ap.add_argument("--batch", type=int, default=300, help="queries in the batch test")
    ap.add_argument("--topn", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None, help="where the temporary files go (default: system temp)")
    ap.add_argument("--out", default=str(HERE / "results"), help="results folder")
    ap.add_argument("--tag", default="", help="label added to the result file names")
    a = ap.parse_args(argv)
    if a.repeats < 1 or a.single < 1 or a.batch < 1:
        ap.error("--repeats, --single and --batch must be >= 1")
    if a.no_random and not a.model:
        ap.error("nothing to do: --no-random without --model")
    return a


# --------------------------------------------------------------------------- models
def random_words(n, rng):
    """``n`` distinct random lowercase words of 3..12 letters."""
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    lengths = rng.integers(3, 13, n)
    raw = letters[rng.integers(0, 26, int(lengths.sum()))].tobytes().decode("ascii")
    ends = np.cumsum(lengths)
    words, seen = [], set()
    start = 0
    for i, end in enumerate(ends.tolist()):
        w = raw[start:end]
        start = end
        if w in seen:
            w = f"{w}{i}"
        seen.add(w)
        words.append(w)
    return words


def random_model(n, dim, seed):
    from w2v.vectors.keyed import KeyedVectors

    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n, dim), dtype=np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs *= rng.uniform(0.5, 2.0, (n, 1)).astype(np.float32)      # unit-ish, like trained vectors
    counts = np.maximum(1, (1e7 / np.arange(1, n + 1))).astype(np.int64)
    return KeyedVectors(random_words(n, rng), vecs, counts=counts)


def write_formats(kv, workdir):
    """The same vectors as word2vec binary, w2v native directory and gensim .kv; returns paths."""
    from gensim.models import KeyedVectors as GKV

    from w2v.vectors.keyed import save_native, save_word2vec_format

    paths = {"bin": os.path.join(workdir, "vectors.bin"), "native": os.path.join(workdir, "native"),
             "gensim": os.path.join(workdir, "vectors.kv")}
    save_word2vec_format(kv, paths["bin"], binary=True)
    save_native(kv, paths["native"])
    g = GKV.load_word2vec_format(paths["bin"], binary=True)
    g.save(paths["gensim"])
    del g
    return paths


# --------------------------------------------------------------------------- timing
def timed_pair(fn_w2v, fn_gensim, repeats):
    """:func:`timed` for both systems, repeats interleaved (w2v first, then gensim first, ...).

    Interleaving exposes both to the same background load, which matters on a
    shared machine.  Returns ``(median_w2v, times_w2v, out_w2v, median_gensim, times_gensim, out_gensim)``.
    """
    tw, tg, out_w, out_g = [], [], None, None
    for k in range(repeats):
        order = ("w", "g") if k % 2 == 0 else ("g", "w")
        for who in order:
            gc.collect()
            t0 = time.perf_counter()
            if who == "w":
                out_w = None
                out_w = fn_w2v()
                tw.append(time.perf_counter() - t0)
            else:
                out_g = None
                out_g = fn_gensim()
                tg.append(time.perf_counter() - t0)
    return statistics.median(tw), tw, out_w, statistics.median(tg), tg, out_g


def bench_model(name, paths, a):
    import w2v
    from gensim.models import KeyedVectors as GKV

    rows = []

    def add(op, w2v_value, gensim_value, unit, higher_is_better, w2v_what, gensim_what, **extra):
        ratio = (w2v_value / gensim_value) if higher_is_better else (gensim_value / w2v_value)
        rows.append({"model": name, "operation": op, "unit": unit, "w2v": w2v_value, "gensim": gensim_value,
                     "ratio": ratio, "w2v_call": w2v_what, "gensim_call": gensim_what, **extra})
        better = "w2v" if ratio >= 1 else "GENSIM"
        print(f"  {op:<34} w2v {w2v_value:12.4g} {unit:<4} gensim {gensim_value:12.4g} {unit:<4} "
              f"ratio {ratio:6.2f} ({better} better)", flush=True)

    # ---- load
    r = a.repeats
    t_nat, all_nat, _, t_gkv, all_gkv, _ = timed_pair(lambda: w2v.load(paths["native"]),
                                                      lambda: GKV.load(paths["gensim"], mmap="r"), r)
    add("load native, mmap", t_nat, t_gkv, "s", False,
        "w2v.load(dir)", "KeyedVectors.load(kv, mmap='r')", w2v_all=all_nat, gensim_all=all_gkv)
    t_bin, all_bin, kv, t_gbin, all_gbin, g = timed_pair(
        lambda: w2v.load(paths["bin"]), lambda: GKV.load_word2vec_format(paths["bin"], binary=True), r)
    add("load word2vec binary", t_bin, t_gbin, "s", False,
        "w2v.load(bin)", "load_word2vec_format(bin)", w2v_all=all_bin, gensim_all=all_gbin)
    add("load: w2v native mmap vs gensim binary", t_nat, t_gbin, "s", False,
        "w2v.load(dir)", "load_word2vec_format(bin)")

    rng = np.random.default_rng(a.seed + 1)
    n = len(kv)
    limit = min(n, 30000)       # query frequent-ish words, as users do
    words = [kv.index_to_key[i] for i in rng.integers(0, limit, a.single + a.batch)]
    single, batch = words[:a.single], words[a.single:]
    topn = a.topn

    # ---- load + first query (norms, word lookup): what a one-off query (a CLI call) pays
    t_w1, all_w1, _, t_g1, all_g1, _ = timed_pair(
        lambda: w2v.load(paths["native"]).most_similar(single[0], topn=topn),
        lambda: GKV.load(paths["gensim"], mmap="r").most_similar(single[0], topn=topn), r)
    add("load native mmap + first query", t_w1, t_g1, "s", False, "w2v.load(dir).most_similar(w)",
        "KeyedVectors.load(kv, mmap='r').most_similar(w)", w2v_all=all_w1, gensim_all=all_g1)

    # ---- single queries (both models loaded from the binary file: same data in RAM)
    kv.fill_norms()
    g.fill_norms()
    kv.most_similar(single[0], topn=topn)
    g.most_similar(single[0], topn=topn)
    # interleaved in groups of 10 queries: both systems see the same background load
    all_w, all_g = [], []
    for _ in range(r):
        tw = tg = 0.0
        res_w, res_g = [], []
        for i in range(0, len(single), 10):
            group = single[i:i + 10]
            t0 = time.perf_counter()
            res_w += [kv.most_similar(w, topn=topn) for w in group]
            t1 = time.perf_counter()
            res_g += [g.most_similar(w, topn=topn) for w in group]
            t2 = time.perf_counter()
            tw, tg = tw + (t1 - t0), tg + (t2 - t1)
        all_w.append(tw)
        all_g.append(tg)
    t_w, t_g = statistics.median(all_w), statistics.median(all_g)
    agree = np.mean([[x for x, _ in p] == [x for x, _ in q] for p, q in zip(res_w, res_g)])
    add("most_similar, single", len(single) / t_w, len(single) / t_g, "q/s", True,
        "most_similar(w)", "most_similar(w)", agreement=float(agree), w2v_all=all_w, gensim_all=all_g)

    # ---- batch
    t_wb, all_wb, res_wb, t_gb, all_gb, res_gb = timed_pair(
        lambda: kv.most_similar_batch(batch, topn=topn), lambda: [g.most_similar(w, topn=topn) for w in batch], r)
    agree_b = np.mean([[x for x, _ in p] == [x for x, _ in q] for p, q in zip(res_wb, res_gb)])
    add(f"most_similar, batch of {len(batch)}", len(batch) / t_wb, len(batch) / t_gb, "q/s", True,
        "most_similar_batch(words)", "most_similar(w) loop", agreement=float(agree_b),
        w2v_all=all_wb, gensim_all=all_gb)
    return rows, {"words": n, "dim": kv.vector_size}


def markdown(rows, info, a):
    from benchmarks.common import git_describe, machine_info

    m = machine_info()
    lines = [
        "# bench_query: load time and most_similar throughput, w2v vs gensim",
        "",
        f"Commit {git_describe()}. Machine: {m.get('cpu_model', '?')}, {m.get('logical_cpus', '?')} CPUs "
        f"(load average {', '.join(f'{x:.1f}' for x in m.get('loadavg') or ())}); "
        f"numpy {np.__version__}, gensim {m.get('versions', {}).get('gensim', '?')}. "
        f"Median of {a.repeats} repeats, warm page cache; ratio > 1: w2v better "
        "(load: gensim s / w2v s; queries: w2v q/s / gensim q/s).",
        "",
    ]
    for name, meta in info.items():
        lines.append(f"Model `{name}`: {meta['words']:,} words x {meta['dim']}.")
    lines += ["", "| model | operation | w2v | gensim | ratio w2v/gensim |", "|---|---|---|---|---|"]
    for row in rows:
        fmt = (lambda v: f"{v:.3f} s") if row["unit"] == "s" else (lambda v: f"{v:,.0f} q/s")
        if row["unit"] == "s" and min(row["w2v"], row["gensim"]) < 0.01:
            fmt = lambda v: f"{v * 1000:.2f} ms"  # noqa: E731
        lines.append(f"| {row['model']} | {row['operation']} | {fmt(row['w2v'])} | {fmt(row['gensim'])} | "
                     f"{row['ratio']:.2f} |")
    agree = [f"{r['model']}, {r['operation']}: {100 * r['agreement']:.0f}%" for r in rows if "agreement" in r]
    if agree:
        lines += ["", "Queries whose top-n words (in order) equal gensim's: " + "; ".join(agree) + "."]
    lines += ["", "Calls: " + "; ".join(sorted({f"{r['operation']}: `{r['w2v_call']}` vs `{r['gensim_call']}`"
                                                for r in rows})), ""]
    return "\n".join(lines)


def main(argv=None):
    a = parse_args(argv)
    import importlib.util
    if importlib.util.find_spec("gensim") is None:
        sys.exit("bench_query needs gensim (pip install gensim)")
    import w2v

    sys.path.insert(0, str(REPO))
    rows, info = [], {}
    root = tempfile.mkdtemp(prefix="w2v-bench-query-", dir=a.workdir)
    try:
        cases = []
        if not a.no_random:
            cases.append(("random", None))
        if a.model:
            cases.append(("trained", a.model))
        for kind, path in cases:
            work = tempfile.mkdtemp(dir=root)
            t0 = time.perf_counter()
            if kind == "random":
                kv = random_model(a.random_size, a.dim, a.seed)
                name = f"random {a.random_size // 1000}k x {a.dim}"
            else:
                kv = w2v.load(path, mmap=False)
                name = f"trained {Path(path).name}"
            paths = write_formats(kv, work)
            del kv
            print(f"{name}: files ready in {time.perf_counter() - t0:.1f}s ({work})", flush=True)
            r, meta = bench_model(name, paths, a)
            rows += r
            info[name] = meta
            shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    text = markdown(rows, info, a)
    print()
    print(text)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = "bench_query" + (f"-{a.tag}" if a.tag else "")
    from benchmarks.common import machine_info
    (out / f"{stem}.json").write_text(json.dumps({"args": vars(a), "machine": machine_info(), "models": info,
                                                  "rows": rows}, indent=2) + "\n")
    (out / f"{stem}.md").write_text(text)
    print(f"wrote {out / (stem + '.json')} and {out / (stem + '.md')}")


if __name__ == "__main__":
    main()
