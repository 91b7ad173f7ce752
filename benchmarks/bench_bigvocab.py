"""The vocabulary phase in bounded memory: time and peak RSS of the in-memory and the spilled count, checked.

Each run is a fresh process that does what ``build_vocab`` does to a file
corpus (:func:`w2v.text.scanning.scan_corpus` with ``--memory-budget`` and
``--min-count``, then the vocabulary and the encoding of the ids) and
reports its times; this process takes the child's peak RSS from
``os.wait4`` (the child is one process; its threads are counted).  Budgets
large enough for the corpus count in memory; smaller ones spill.

Every run's vocabulary (words, counts and order) and encoded corpus must be
the same: their digests are compared.  The vocabulary is also checked
against a reference made without w2v: ``--reference-counts FILE`` (what
``benchmarks/gen_corpus.py --counts`` writes: each Zipf word's exact count
and first token index, so the order is checked too), and/or
``--sort-reference`` (``tr | sort | uniq -c`` of the corpus' tokens, ASCII
whitespace only: the words and counts, not their order).

Example::

    python benchmarks/gen_corpus.py --tokens 20e6 --distinct 5e6 -o /tmp/c20m.txt --counts /tmp/c20m.counts
    python benchmarks/bench_bigvocab.py /tmp/c20m.txt --budgets 4096 256 64 --repeats 3 \\
        --reference-counts /tmp/c20m.counts --sort-reference
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import hashlib, json, sys, time
from w2v.text.scanning import scan_corpus
from w2v.text.vocab import build_vocab, final_vocab_min_count, kept_words
from w2v.text.encoded import encode_corpus
path, vocab_out = sys.argv[1], sys.argv[5]
budget, min_count, threads = (int(a) for a in sys.argv[2:5])
t0 = time.perf_counter()
scanned = scan_corpus(path, memory_budget=budget, threads=threads, min_count=min_count)
t1 = time.perf_counter()
eff = final_vocab_min_count(scanned.counts, min_count)
vocab, remap = build_vocab(scanned.words, scanned.counts, eff, None, kept_words(scanned.words, scanned.counts, eff))
stream_on_disk = scanned.stream.on_disk
encoded = encode_corpus(scanned, remap, len(vocab))
t2 = time.perf_counter()
digest = hashlib.sha256()
for _, ids in encoded.blocks():
    digest.update(ids.tobytes())
if vocab_out != "-":
    with open(vocab_out, "w", encoding="utf-8") as f:
        for w, c in zip(vocab.words, vocab.counts.tolist()):
            f.write(f"{w}\t{c}\n")
words = hashlib.sha256("\n".join(f"{w}\t{c}" for w, c in zip(vocab.words, vocab.counts.tolist())).encode())
spill = scanned.spill or {}
print(json.dumps({"scan_s": t1 - t0, "vocab_s": t2 - t0, "tokens": scanned.n_tokens,
                  "distinct": scanned.n_distinct, "listed": len(scanned.words), "vocab": len(vocab),
                  "generations": spill.get("generations", 0), "spilled_bytes": spill.get("spilled_bytes", 0),
                  "ids_on_disk_bytes": 4 * encoded.length if stream_on_disk else 0,
                  "vocab_digest": words.hexdigest(), "encoded_digest": digest.hexdigest()}))
"""


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_child(corpus, budget_mib, min_count, threads, vocab_out, tmpdir):
    env = dict(os.environ, TMPDIR=tmpdir)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, corpus, str(budget_mib << 20), str(min_count),
                             str(threads), vocab_out], stdout=subprocess.PIPE, env=env, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"bench_bigvocab: the child failed (budget {budget_mib} MiB): exit {proc.returncode}")
    r = json.loads(out.strip().splitlines()[-1])
    r["peak_rss_mb"] = usage.ru_maxrss / 1024
    return r


def reference_from_counts(path, min_count):
    """The vocabulary a ``gen_corpus.py --counts`` file implies: words occurring ``min_count`` times (the
    unique strings occur once), by count, then first occurrence."""
    rows = []
    with open(path, encoding="ascii") as f:
        for line in f:
            w, c, first = line.rstrip("\n").split("\t")
            if int(c) >= min_count:
                rows.append((-int(c), int(first), w))
    rows.sort()
    return [(w, -c) for c, _, w in rows]


def reference_from_sort(corpus, min_count, tmpdir):
    """Counts of the words occurring ``min_count`` times, by ``tr | sort | uniq -c`` (ASCII whitespace)."""
    cmd = (f"tr -s ' \\t\\r\\n\\v\\f' '\\n\\n\\n\\n\\n\\n' < {_quote(corpus)} | grep -v '^$' | "
           f"LC_ALL=C sort -S 1G --parallel=1 -T {_quote(tmpdir)} | uniq -c | awk '$1 >= {int(min_count)}'")
    out = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], capture_output=True, check=True)
    counts = {}
    for line in out.stdout.decode("utf-8", "replace").splitlines():   # only the words kept: awk filtered
        c, w = line.strip().split(" ", 1)
        counts[w] = int(c)
    return counts


def _quote(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def read_vocab(path):
    with open(path, encoding="utf-8") as f:
        return [(w, int(c)) for w, c in (line.rstrip("\n").split("\t") for line in f)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--budgets", type=int, nargs="+", default=[4096, 256], metavar="MIB",
                    help="memory budgets to run (MiB): large ones count in memory, small ones spill")
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--reference-counts", default=None, metavar="FILE")
    ap.add_argument("--sort-reference", action="store_true")
    ap.add_argument("--tmpdir", default=None, help="where the spill and the encoded ids go (TMPDIR)")
    ap.add_argument("--tag", default="bigvocab")
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    corpus = str(Path(args.corpus).resolve())
    tmpdir = args.tmpdir or tempfile.gettempdir()
    work = tempfile.mkdtemp(prefix="bench_bigvocab-", dir=tmpdir)
    runs = []
    vocab_files = {}
    for rep in range(args.repeats):
        for budget in args.budgets:          # interleaved: the machine's load spreads over all budgets
            out = os.path.join(work, f"vocab-{budget}.tsv") if rep == 0 else "-"
            r = run_child(corpus, budget, args.min_count, args.threads, out, tmpdir)
            r.update(budget=budget, repeat=rep)
            runs.append(r)
            if rep == 0:
                vocab_files[budget] = out
            print(f"[{rep + 1}/{args.repeats}] budget {budget} MiB: scan {r['scan_s']:.1f} s, vocabulary phase "
                  f"{r['vocab_s']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, {r['generations']} spills",
                  file=sys.stderr)
    first = runs[0]
    checks = []
    same = all(r["vocab_digest"] == first["vocab_digest"] and r["encoded_digest"] == first["encoded_digest"]
               for r in runs)
    checks.append(("every run: the same vocabulary (words, counts, order) and encoded corpus", same))
    vocab = read_vocab(vocab_files[args.budgets[0]])
    if args.reference_counts:
        ref = reference_from_counts(args.reference_counts, args.min_count)
        checks.append((f"vocabulary == gen_corpus counts ({len(ref):,} words, order included)", vocab == ref))
    if args.sort_reference:
        t = time.perf_counter()
        ref = reference_from_sort(corpus, args.min_count, tmpdir)
        checks.append((f"words and counts == tr | sort | uniq -c ({len(ref):,} words, "
                       f"{time.perf_counter() - t:.0f} s)", dict(vocab) == ref))
    for path in vocab_files.values():
        os.remove(path)
    os.rmdir(work)
    base = args.budgets[0]
    rows = []
    for budget in args.budgets:
        cell = [r for r in runs if r["budget"] == budget]
        scan = statistics.median(r["scan_s"] for r in cell)
        phase = statistics.median(r["vocab_s"] for r in cell)
        ratio = statistics.median(r["scan_s"] / b["scan_s"] for r, b in
                                  zip(cell, [r for r in runs if r["budget"] == base]))
        rss = max(r["peak_rss_mb"] for r in cell)
        disk = max(r["spilled_bytes"] + r["ids_on_disk_bytes"] for r in cell) / 1e6
        rows.append(f"| {budget:,} | {cell[0]['generations']} | {scan:.1f} | {ratio:.2f} | {phase:.1f} | "
                    f"{rss:,.0f} | {disk:,.0f} | {cell[0]['listed']:,} |")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    lines = [f"# w2v vocabulary phase in bounded memory — {stamp}", "",
             f"- CPU: **{cpu_model()}**, {os.cpu_count()} logical CPUs; load average before: "
             f"{os.getloadavg()[0]:.1f}",
             f"- corpus: `{args.corpus}`: {first['tokens']:,} tokens, {first['distinct']:,} distinct strings; "
             f"min_count {args.min_count}: {first['vocab']:,} words; {args.threads} threads",
             f"- medians of {args.repeats} fresh processes per budget (interleaved); scan ratio: against the "
             f"{base:,} MiB budget, pair by pair; peak RSS: the largest of the repeats", "",
             "| budget MiB | spills | scan s | scan ÷ first | vocabulary phase s | peak RSS MB | temp disk MB "
             "| words listed |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|", *rows, ""]
    lines += [f"- {'PASS' if ok else 'FAIL'}: {what}" for what, ok in checks]
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(args.out_dir, exist_ok=True)
    stem = Path(args.out_dir) / f"bench_{args.tag}-{stamp}"
    stem.with_suffix(".md").write_text(text)
    stem.with_suffix(".json").write_text(json.dumps({"runs": runs, "checks": checks}, indent=1))
    if not all(ok for _, ok in checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
