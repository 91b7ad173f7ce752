#!/usr/bin/env python3
"""A billion tokens on one machine: `w2v train` on a generated corpus streamed through stdin.

`benchmarks/gen_corpus.py` writes the corpus (Zipf words plus a tail of unique
strings, from a seed) into a pipe to `w2v train -`, so nothing large is stored
but the run's own temporary files (the encoded corpus beyond the memory
budget, the vocabulary's spilled runs).  While it runs, a sampler reads every
``--every`` seconds the trainer's RSS and CPU time (``/proc``) and the bytes
under its private ``TMPDIR``.  The report gives:

- the vocabulary phase: its seconds (generation included: the generator feeds
  the scan) and its peak RSS;
- words/s in each tenth of the training (from the run's ``--report-json``
  progress ticks), with the trainer's CPU seconds in that tenth, so a tenth
  slowed by other load on a shared machine can be told from one slowed by the
  trainer itself (corpus words per CPU-second);
- RSS over time after the vocabulary (its range) and the temporary disk's peak;
- the ETA printed at 10%, 50% and 90% of training against the time it ended.

Usage::

    python benchmarks/bench_billion.py --tokens 1e9 --distinct 12e6 --threads 2

Writes ``benchmarks/results/bench_billion-<time>.{json,md}``.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_sample(pid):
    """(rss_bytes, cpu_seconds) of process ``pid`` from /proc, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/statm") as f:
            rss_pages = int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK   # utime, stime
    return rss_pages * os.sysconf("SC_PAGE_SIZE"), cpu


def tmp_bytes(pid, path):
    """Bytes of the temporary files of process ``pid`` under ``path``: the files there, and those it holds
    open there after unlinking them (w2v's encoded corpus is such a file)."""
    seen, total = set(), 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        fds = []
    for fd in fds:
        try:
            if not os.readlink(f"/proc/{pid}/fd/{fd}").startswith(path):
                continue
            st = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size
    return total


class Sampler(threading.Thread):
    """Samples (seconds, rss, cpu, tmp bytes) of one process every ``every`` seconds until it ends."""

    def __init__(self, pid, tmpdir, every):
        super().__init__(daemon=True)
        self.pid, self.tmpdir, self.every = pid, tmpdir, every
        self.rows = []
        self.t0 = time.perf_counter()

    def run(self):
        while True:
            s = proc_sample(self.pid)
            if s is None:
                return
            self.rows.append((time.perf_counter() - self.t0, s[0], s[1], tmp_bytes(self.pid, self.tmpdir)))
            time.sleep(self.every)


def parse_stderr(lines):
    """The vocabulary line's time and the progress lines' (percent, elapsed-free ETA seconds) pairs."""
    etas = []
    for line in lines:
        m = re.search(r"(\d+(?:\.\d+)?)%.*?ETA\s+(?:(\d+):)?(\d+):(\d+)", line)
        if m:
            h = int(m.group(2) or 0)
            etas.append((float(m.group(1)), h * 3600 + int(m.group(3)) * 60 + int(m.group(4))))
    return etas


def tenths(ticks, columns, total_words):
    """Words/s and the seconds of each tenth of training, from the report's progress ticks."""
    sec, frac = columns.index("seconds"), columns.index("fraction")
    pts = [(0.0, 0.0)] + [(t[sec], t[frac]) for t in ticks]
    out = []
    for k in range(10):
        lo = min(pts, key=lambda p: abs(p[1] - k / 10))
        hi = min(pts, key=lambda p: abs(p[1] - (k + 1) / 10))
        dt = hi[0] - lo[0]
        out.append({"tenth": k + 1, "start_s": lo[0], "end_s": hi[0],
                    "words_per_s": (hi[1] - lo[1]) * total_words / dt if dt > 0 else None})
    return out


def cpu_between(samples, t_from, t_to):
    """The trainer's CPU seconds between two of the sampler's times (nearest samples)."""
    if not samples:
        return None
    a = min(samples, key=lambda r: abs(r[0] - t_from))
    b = min(samples, key=lambda r: abs(r[0] - t_to))
    return b[2] - a[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=float, default=1e9)
    ap.add_argument("--distinct", type=float, default=12e6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--memory-budget", type=int, default=None, metavar="MIB")
    ap.add_argument("--every", type=float, default=2.0, help="sampling period in seconds")
    ap.add_argument("--tmpdir", default=None, help="parent of the run's private TMPDIR")
    ap.add_argument("--w2v", default=shutil.which("w2v") or "w2v")
    ap.add_argument("--out-dir", default=str(HERE / "results"))
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="w2v-billion-", dir=args.tmpdir)
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    report_path, vectors = os.path.join(work, "report.json"), os.path.join(work, "vectors.bin")
    gen = [sys.executable, str(HERE / "gen_corpus.py"), "--tokens", str(args.tokens), "--distinct",
           str(args.distinct), "--seed", str(args.seed), "-o", "-"]
    train = [args.w2v, "train", "-", "-o", vectors, "--dim", str(args.dim), "--epochs", "1", "--threads",
             str(args.threads), "--report-json", report_path]
    if args.memory_budget is not None:
        train += ["--memory-budget", str(args.memory_budget)]
    env = dict(os.environ, TMPDIR=tmp)
    try:
        t0 = time.perf_counter()
        g = subprocess.Popen(gen, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        w = subprocess.Popen(train, stdin=g.stdout, stderr=subprocess.PIPE, env=env, text=True)
        g.stdout.close()
        sampler = Sampler(w.pid, tmp, args.every)
        sampler.start()
        err_lines = []
        for line in w.stderr:                       # progress lines end in \r or \n
            for part in re.split(r"[\r\n]", line):
                if part.strip():
                    err_lines.append((time.perf_counter() - t0, part.strip()))
        rc = w.wait()
        g.wait()
        wall = time.perf_counter() - t0
        sampler.join(5)
        gen_err = g.stderr.read().decode(errors="replace").strip()
        if rc != 0:
            sys.exit(f"w2v train failed ({rc}): {err_lines[-3:]}")
        with open(report_path) as f:
            report = json.load(f)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = summarize(args, report, sampler.rows, err_lines, wall, gen_err, " ".join(train))
    write(summary, args.out_dir)


def summarize(args, report, samples, err_lines, wall, gen_err, command):
    """The figures of the run, as one dict."""
    vocab_line = next((t for t, s in err_lines if s.startswith("vocabulary:")), None)
    vocab_end = vocab_line if vocab_line is not None else 0.0
    before = [r for r in samples if r[0] <= vocab_end]
    after = [r for r in samples if r[0] > vocab_end + 5]
    total_words = report.get("corpus_words") or report.get("words") or report.get("total_words")
    prog = report["progress"]
    cols = prog["columns"]
    train_s = report.get("train_seconds") or report.get("seconds")
    parts = tenths(prog["ticks"], cols, total_words) if total_words else []
    # training ends before the vectors are written (save_seconds) and the process exits
    train_end = wall - (report.get("save_seconds") or 0.0)
    train_start = (train_end - train_s) if train_s else vocab_end
    for p in parts:
        cpu = cpu_between(samples, train_start + p["start_s"], train_start + p["end_s"])
        span = p["end_s"] - p["start_s"]
        p["cpu_seconds"] = cpu
        p["words_per_cpu_s"] = (p["words_per_s"] * span / cpu) if (cpu and p["words_per_s"]) else None
    eta_checks = []
    progress = [(t, pct, eta) for t, s in err_lines for pct, eta in parse_stderr([s])]
    for want in (10, 50, 90):
        hit = next(((t, pct, eta) for t, pct, eta in progress if pct >= want), None)
        if hit:
            eta_checks.append({"percent": hit[1], "eta_s": hit[2], "actual_remaining_s": round(train_end - hit[0], 1)})
    return {
        "command": command, "tokens": args.tokens, "distinct_asked": args.distinct, "seed": args.seed,
        "cpu": cpu_model(), "wall_seconds": round(wall, 1), "train_seconds": train_s,
        "vocabulary_seconds": round(vocab_end, 1), "vocab_peak_rss_mb": mb(max((r[1] for r in before), default=0)),
        "train_rss_mb_min": mb(min((r[1] for r in after), default=0)),
        "train_rss_mb_max": mb(max((r[1] for r in after), default=0)),
        "peak_tmp_mb": mb(max((r[3] for r in samples), default=0)),
        "tenths": parts, "eta_checks": eta_checks, "generator": gen_err.splitlines()[-2:],
        "vocabulary_line": next((s for _, s in err_lines if s.startswith("vocabulary:")), None),
        "report_keys": sorted(report), "rss_samples": [(round(t, 1), mb(r), round(c, 1), mb(d))
                                                       for t, r, c, d in samples[:: max(1, len(samples) // 200)]],
        "n_progress_lines": len(progress),
    }


def mb(n):
    return round(n / 2**20, 1)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown"


def write(summary, out_dir):
    """``bench_billion-<time>.json`` and a markdown table beside it."""
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, "bench_billion-" + time.strftime("%Y%m%d-%H%M%S"))
    with open(stem + ".json", "w") as f:
        json.dump(summary, f, indent=1)
    lines = [f"# {summary['tokens']:.0f} tokens, {summary['cpu']}", "", f"`{summary['command']}`", "",
             f"- {summary['vocabulary_line']}",
             f"- vocabulary phase {summary['vocabulary_seconds']} s (generation included), peak RSS "
             f"{summary['vocab_peak_rss_mb']} MB",
             f"- training {summary['train_seconds']} s; RSS after the vocabulary {summary['train_rss_mb_min']}–"
             f"{summary['train_rss_mb_max']} MB; temporary disk peak {summary['peak_tmp_mb']} MB; wall "
             f"{summary['wall_seconds']} s", "",
             "| tenth | words/s | trainer CPU s | words per CPU-s |", "|---:|---:|---:|---:|"]
    for p in summary["tenths"]:
        wps = f"{p['words_per_s']:,.0f}" if p["words_per_s"] else "-"
        wpc = f"{p['words_per_cpu_s']:,.0f}" if p["words_per_cpu_s"] else "-"
        cpu = f"{p['cpu_seconds']:.1f}" if p["cpu_seconds"] is not None else "-"
        lines.append(f"| {p['tenth']} | {wps} | {cpu} | {wpc} |")
    lines += ["", "| at | ETA printed (s) | remaining in fact (s) |", "|---:|---:|---:|"]
    lines += [f"| {e['percent']}% | {e['eta_s']} | {e['actual_remaining_s']} |" for e in summary["eta_checks"]]
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
