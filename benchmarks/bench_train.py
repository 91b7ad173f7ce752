#!/usr/bin/env python3
"""Training benchmark: w2v against gensim (iterable and corpus_file), word2vec.c and fastText.

Every run of every system is a separate child process started under
``/usr/bin/time -v`` (peak RSS and wall clock of that process alone). Each
child's time is split into vocabulary building and training:

* w2v            its ``--report-json`` (``vocab_seconds``, ``train_seconds``); w2v's default
                 skip-gram shares one set of negatives across a centre word's window
                 (word2vec.c and gensim draw fresh negatives per pair);
* w2v-exact      the same with ``--exact`` (word2vec.c's per-pair order, Hogwild threads
                 without replicas): the like-for-like algorithm (not in the default systems);
* w2v-base       w2v from another checkout (``--base-cmd``), for before/after comparisons of a
                 change: its words/s ratio and, at 1 thread, whether it wrote the same file
                 (SHA-256 of the vectors) are in the summary (not in the default systems);
* gensim-iter    ``benchmarks/run_gensim.py --mode iter``: ``build_vocab(LineSentence)`` and
                 ``train(...)`` timed separately (for a single-line corpus the reader is
                 ``Text8Corpus`` by default, see ``--gensim-reader``);
* gensim-file    ``benchmarks/run_gensim.py --mode file``: the same with ``corpus_file=``;
* gensim-file-stated  the same with the ``min_alpha`` that makes each of N workers end
                 the epoch at 1e-4 (``alpha - N * (alpha - 1e-4)``): gensim 4.4 measures a
                 worker's progress against the whole corpus, so with N workers its rate
                 otherwise stops 1/N of the way down (not in the default systems; 1 epoch);
* word2vec-c     the original C tool (PyPI ``word2vec``), ``-debug 2`` under ``stdbuf -oL``:
                 vocab = start .. first "Alpha:" progress line (vocabulary scan, sort,
                 InitNet, unigram table), train = first .. last progress line;
* fasttext       the fastText CLI with ``-minn 0 -maxn 0`` (plain word2vec), ``-verbose 2``:
                 vocab = start .. "Number of labels" line, train = that .. final
                 "Progress: 100.0%" line.

Training words/s, one definition for all: raw corpus tokens (whitespace tokens of
the file, counted once here) x epochs / training seconds. w2v reads and tokenizes the
corpus once, in its vocabulary phase (the ids are encoded there), while gensim and
word2vec.c read and tokenize it again inside their training time, every epoch; so each
run also gets "vocab+train words/s" = tokens x epochs / (vocabulary seconds + training
seconds), which covers reading the corpus for every system.

Quality: every output is loaded with gensim ``KeyedVectors.load_word2vec_format`` and
scored on the Google analogies (``evaluate_word_analogies``, restrict_vocab=30000),
WS-353 and SimLex-999 (``evaluate_word_pairs``, Spearman).

Results: medians over ``--repeats`` (repeats are interleaved over systems), a
markdown table on stdout, and ``<out>/train-<timestamp>.{json,md,png}``.

Example (tiny plumbing test):
  head -c 2000000 /work/bench-data/wiki17m.txt > /tmp/tiny.txt
  python3 benchmarks/bench_train.py /tmp/tiny.txt --repeats 1 --threads 1 \\
      --systems gensim-iter gensim-file word2vec-c fasttext
"""
from __future__ import annotations

import os

# The children get the environment as it was; this process only evaluates vectors
# (gensim most_similar = BLAS matrix-vector products), which multi-threaded OpenBLAS
# slows down badly on a busy machine. Limit BLAS threads here, before numpy is imported.
ORIG_ENV = dict(os.environ)
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import datetime as _dt
import hashlib
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import (REPO, EVAL_DIR, TIME_BIN, count_tokens, evaluate_vectors, git_describe,  # noqa: E402
                    machine_info, max_line_bytes, median, run_timed, which_real, write_line_broken,
                    write_prefix)

ALL_SYSTEMS = ["w2v", "gensim-iter", "gensim-file", "word2vec-c", "fasttext", "gensim-file-stated", "w2v-exact",
               "w2v-base"]
DEFAULT_SYSTEMS = ALL_SYSTEMS[:5]
W2V_RUNS = ("w2v", "w2v-exact", "w2v-base")   # w2v-exact: --exact; w2v-base: another checkout (--base-cmd)
GENSIM = ("gensim-iter", "gensim-file")   # the speed references
GENSIM_RUNS = GENSIM + ("gensim-file-stated",)
GENSIM_MIN_ALPHA = 1e-4   # gensim's default min_alpha, the end of the stated schedule
FASTTEXT_FALLBACK = "/work/bench-data/tools/bin/fasttext"


# --------------------------------------------------------------------------- CLI

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="?", help="training text (whitespace-tokenized, e.g. text8-normalized)")
    ap.add_argument("--chart", metavar="JSON", default=None,
                    help="only draw the chart of a saved run (its .json) into a .png beside it")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--model", nargs="+", choices=["sg", "cbow"], default=["sg", "cbow"])
    ap.add_argument("--systems", nargs="+", choices=ALL_SYSTEMS, default=DEFAULT_SYSTEMS,
                    help="systems to run (default: all but gensim-file-stated); gensim-file-stated is "
                         "gensim's corpus_file mode given the min_alpha that makes each worker's "
                         "learning rate end the epoch at 1e-4, as the stated schedule does (with N "
                         "workers gensim 4.4 measures a worker's progress against the whole corpus, "
                         "so its rate otherwise ends the epoch only 1/N of the way down); 1 epoch only")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--window", type=int, default=5)
    ap.add_argument("--negative", type=int, default=5)
    ap.add_argument("--sample", type=float, default=1e-3)
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--alpha", default="auto",
                    help="starting learning rate for every system; 'auto' = word2vec.c's defaults "
                         "(0.025 skip-gram, 0.05 CBOW); 'native' = each system's own default")
    ap.add_argument("--eval-restrict", type=int, default=30000,
                    help="restrict_vocab for the analogy evaluation (default 30000)")
    ap.add_argument("--analogies", default=str(EVAL_DIR / "questions-words.txt"))
    ap.add_argument("--ws353", default=str(EVAL_DIR / "wordsim353.tsv"))
    ap.add_argument("--simlex", default=str(EVAL_DIR / "simlex999.txt"))
    ap.add_argument("--no-eval", action="store_true", help="skip the quality evaluation")
    ap.add_argument("--eval-first-repeat-only", action="store_true",
                    help="evaluate only the vectors of the first repeat (an analogy evaluation with "
                         "restrict_vocab 30000 takes ~10-20 s per run)")
    ap.add_argument("--vary-seed", action="store_true",
                    help="repeat r runs with random seed 1 + r (w2v --seed, gensim seed=, fastText "
                         "-seed; word2vec.c has no seed option and stays as it is), so that the "
                         "median quality is taken over seeds, not over reruns of one seed (1-thread "
                         "w2v and gensim are deterministic for a given seed)")
    ap.add_argument("--out", default=str(HERE / "results"), help="results folder")
    ap.add_argument("--tag", default="", help="label added to the result file names")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per run (default: none)")
    ap.add_argument("--w2v-cmd", default=None,
                    help="command that runs the w2v CLI (default: '<this python> benchmarks/run_cli.py', "
                         "i.e. the working tree); a custom command runs in the results' work folder, so "
                         "'python DIR/benchmarks/run_cli.py' runs DIR's code")
    ap.add_argument("--base-cmd", default=None,
                    help="command that runs the CLI of the w2v to compare with (system w2v-base), e.g. "
                         "'python /path/to/old/checkout/benchmarks/run_cli.py' (or, for a checkout older than "
                         "run_cli.py, 'env PYTHONPATH=DIR python -m cli.main'); runs in the work folder")
    ap.add_argument("--w2v-extra", default="", help="extra arguments for 'w2v train' (one string)")
    ap.add_argument("--no-warmup", action="store_true",
                    help="do not run w2v once on a small prefix first (fills the Numba cache)")
    ap.add_argument("--word2vec-bin", default=None, help="word2vec.c binary (default: PyPI word2vec's)")
    ap.add_argument("--fasttext-bin", default=None,
                    help=f"fastText CLI (default: 'fasttext' on PATH, else {FASTTEXT_FALLBACK})")
    ap.add_argument("--gensim-reader", choices=["auto", "line", "text8"], default="auto",
                    help="gensim-iter corpus reader: LineSentence ('line'), Text8Corpus ('text8'), or "
                         "'auto' = Text8Corpus when the first line is over 10 MB (a single-line corpus: "
                         "same sentences, LineSentence would hold the whole line in memory)")
    ap.add_argument("--no-gensim-file-fix", action="store_true",
                    help="give gensim-file the corpus as it is even when it has a very long line "
                         "(gensim 4.4 corpus_file then trains on only ~10k words); by default such a "
                         "corpus is copied once with 5,001 tokens a line (<corpus stem>.lines5001<ext> "
                         "next to it, else in the work folder) and gensim-file reads the copy; see "
                         "common.write_line_broken for why 5,001")
    ap.add_argument("--keep-vectors", action="store_true", help="keep the trained vector files")
    ap.add_argument("--echo", action="store_true", help="show the children's output")
    a = ap.parse_args(argv)
    if a.repeats < 1 or a.epochs < 1:
        ap.error("--repeats and --epochs must be >= 1")
    if a.alpha not in ("auto", "native"):
        try:
            float(a.alpha)
        except ValueError:
            ap.error("--alpha must be auto, native or a number")
    return a


def alpha_for(a, model: str):
    if a.alpha == "native":
        return None
    if a.alpha == "auto":
        return 0.025 if model == "sg" else 0.05
    return float(a.alpha)


# --------------------------------------------------------------------------- systems

class Ctx:
    """Everything a system runner needs."""

    def __init__(self, a, tokens: int, workdir: Path):
        self.a, self.tokens, self.workdir = a, tokens, workdir
        self.corpus = str(Path(a.corpus).resolve())
        self.env = dict(ORIG_ENV)
        # w2v: the default command runs the working tree (benchmarks/run_cli.py, started in the
        # repo).  A custom command is started in the work folder, not in the repo: `python -m`
        # puts its current folder first on sys.path, which would shadow a PYTHONPATH given in it.
        self.w2v_cwd = str(REPO)
        self.w2v_env = dict(self.env)
        if a.w2v_cmd:
            self.w2v_cmd = shlex.split(a.w2v_cmd)
            self.w2v_cwd = str(workdir)
        else:
            self.w2v_cmd = [sys.executable, str(HERE / "run_cli.py")]
        self.base_cmd = shlex.split(a.base_cmd) if a.base_cmd else None
        self.w2v_has_alpha = None
        self.word2vec_bin = a.word2vec_bin or which_real("word2vec")
        ft = a.fasttext_bin or which_real("fasttext")
        if not ft and os.access(FASTTEXT_FALLBACK, os.X_OK):
            ft = FASTTEXT_FALLBACK
        self.fasttext_bin = ft
        self.stdbuf = shutil.which("stdbuf")
        self.gensim_reader = a.gensim_reader
        self.gensim_file_corpus = self.corpus

    def prepare_gensim_file_corpus(self, limit: int = 1 << 20):
        """gensim corpus_file mode needs lines of at most ~10k words (see common.write_line_broken)."""
        if self.a.no_gensim_file_fix:
            return None
        longest = max_line_bytes(self.corpus)
        if longest <= limit:
            return None
        src = Path(self.corpus)
        cands = [src.with_name(src.stem + ".lines5001" + src.suffix), self.workdir / ("lines5001" + src.suffix)]
        for dst in cands:
            if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
                self.gensim_file_corpus = str(dst)
                return f"gensim-file reads {dst} (existing copy of the corpus with 5,001 tokens a line)"
            try:
                t = time.perf_counter()
                n = write_line_broken(src, dst)
            except OSError:
                continue
            if n != self.tokens:
                raise RuntimeError(f"{dst}: {n} tokens written, corpus has {self.tokens}")
            self.gensim_file_corpus = str(dst)
            return (f"gensim-file reads {dst}: the corpus with 5,001 tokens a line "
                    f"(longest line {longest/1e6:.0f} MB; written in {time.perf_counter() - t:.0f} s)")
        raise RuntimeError("cannot write a line-broken copy of the corpus for gensim-file")

    def probe_w2v(self):
        try:
            p = subprocess.run(self.w2v_cmd + ["train", "--help"], capture_output=True, text=True,
                               env=self.w2v_env, cwd=self.w2v_cwd, timeout=120)
            text = p.stdout + p.stderr
            self.w2v_has_alpha = "--alpha" in text
            return p.returncode == 0, text
        except (OSError, subprocess.TimeoutExpired) as e:
            return False, str(e)


def cmd_w2v(ctx: Ctx, model, threads, out, report, corpus=None, seed=None, system="w2v"):
    a = ctx.a
    prefix = ctx.base_cmd if system == "w2v-base" else ctx.w2v_cmd
    cmd = prefix + ["train", corpus or ctx.corpus, "-o", str(out), "--model", model,
                         "--dim", a.dim, "--window", a.window, "--negative", a.negative,
                         "--sample", repr(a.sample), "--min-count", a.min_count, "--epochs", a.epochs,
                         "--threads", threads, "--tokenizer", "whitespace", "--quiet",
                         "--report-json", str(report)]
    alpha = alpha_for(a, model)
    if alpha is not None and ctx.w2v_has_alpha:
        cmd += ["--alpha", repr(alpha)]
    if seed is not None:
        cmd += ["--seed", seed]
    cmd += shlex.split(a.w2v_extra)
    return [str(c) for c in cmd]


def run_system(ctx: Ctx, system: str, model: str, threads: int, tag: str, evaluate: bool = True,
               seed: int | None = None) -> dict:
    a = ctx.a
    wd = ctx.workdir
    rec = {"system": system, "model": model, "threads": threads,
           "seed": seed if system != "word2vec-c" else None}
    alpha = alpha_for(a, model)
    report = wd / f"{tag}.report.json"
    timefile = wd / f"{tag}.time"
    markers = None
    env, cwd = ctx.env, None
    binary = True
    if system in W2V_RUNS:
        out = wd / f"{tag}.bin"
        if system == "w2v-base" and not ctx.base_cmd:
            return {**rec, "status": "failed", "error": "system w2v-base needs --base-cmd"}
        cmd = cmd_w2v(ctx, model, threads, out, report, seed=seed, system=system)
        if system == "w2v-exact":
            cmd.append("--exact")
        env, cwd = ctx.w2v_env, (str(wd) if system == "w2v-base" else ctx.w2v_cwd)
        rec["alpha"] = alpha if ctx.w2v_has_alpha else "w2v default"
    elif system in GENSIM_RUNS:
        out = wd / f"{tag}.bin"
        cmd = [sys.executable, str(HERE / "run_gensim.py"),
               ctx.gensim_file_corpus if system != "gensim-iter" else ctx.corpus, str(out),
               "--mode", "iter" if system == "gensim-iter" else "file",
               "--reader", ctx.gensim_reader, "--report-json", str(report),
               "--sg", "1" if model == "sg" else "0", "--dim", a.dim, "--window", a.window,
               "--negative", a.negative, "--sample", repr(a.sample), "--min-count", a.min_count,
               "--epochs", a.epochs, "--threads", threads]
        if alpha is not None:
            cmd += ["--alpha", repr(alpha)]
        if system == "gensim-file-stated":
            if a.epochs != 1:
                # over several epochs the per-worker progress jumps at each epoch start:
                # no single min_alpha makes that schedule linear
                return {**rec, "status": "failed",
                        "error": "gensim-file-stated corrects one epoch's schedule only (--epochs 1)"}
            start = alpha if alpha is not None else 0.025
            # a worker's progress reaches 1/threads, so its rate ends at
            # start - (start - m) / threads; solve for m ending it at GENSIM_MIN_ALPHA
            rec["min_alpha"] = start - threads * (start - GENSIM_MIN_ALPHA)
            cmd += ["--min-alpha", repr(rec["min_alpha"])]
        if seed is not None:
            cmd += ["--seed", seed]
        rec["alpha"] = alpha if alpha is not None else "gensim default (0.025)"
    elif system == "word2vec-c":
        if not ctx.word2vec_bin:
            return {**rec, "status": "failed", "error": "word2vec binary not found (pip install word2vec)"}
        out = wd / f"{tag}.bin"
        cmd = ([ctx.stdbuf, "-oL"] if ctx.stdbuf else []) + [
            ctx.word2vec_bin, "-train", ctx.corpus, "-output", str(out),
            "-cbow", "0" if model == "sg" else "1", "-size", a.dim, "-window", a.window,
            "-negative", a.negative, "-hs", "0", "-sample", repr(a.sample), "-min-count", a.min_count,
            "-iter", a.epochs, "-threads", threads, "-binary", "1", "-debug", "2"]
        if alpha is not None:
            cmd += ["-alpha", repr(alpha)]
        rec["alpha"] = alpha if alpha is not None else ("0.025" if model == "sg" else "0.05")
        markers = {"vocab_scanned": (r"Words in train file", "first"),
                   "train_start": (r"Alpha:", "first"),
                   "train_end": (r"Alpha:", "last")}
    elif system == "fasttext":
        if not ctx.fasttext_bin:
            return {**rec, "status": "failed",
                    "error": "fastText CLI not found (benchmarks/build_fasttext.sh builds it)"}
        prefix = wd / tag
        out = wd / f"{tag}.vec"
        binary = False
        cmd = [ctx.fasttext_bin, "skipgram" if model == "sg" else "cbow", "-input", ctx.corpus,
               "-output", str(prefix), "-dim", a.dim, "-ws", a.window, "-neg", a.negative,
               "-t", repr(a.sample), "-minCount", a.min_count, "-epoch", a.epochs, "-thread", threads,
               "-minn", "0", "-maxn", "0", "-verbose", "2"]
        if seed is not None:
            cmd += ["-seed", seed]
        if alpha is not None:
            cmd += ["-lr", repr(alpha)]
        rec["alpha"] = alpha if alpha is not None else "fastText default (0.05)"
        markers = {"vocab_done": (r"Number of labels", "first"),
                   "train_end": (r"Progress:[^\r\n]*\n", "first")}
    else:
        raise ValueError(system)
    cmd = [str(c) for c in cmd]
    rec["cmd"] = " ".join(shlex.quote(c) for c in cmd)

    r = run_timed(cmd, env=env, cwd=cwd, timeout=a.timeout, markers=markers,
                  time_report=timefile, echo=a.echo)
    rec.update({k: r.get(k) for k in ("rc", "timed_out", "wall_parent_s", "wall_s", "max_rss_mib",
                                      "user_s", "sys_s", "cpu_percent", "major_faults", "signal")})
    rec["markers"] = r.get("markers")
    if r.get("wall_s") is None:
        rec["wall_s"] = r.get("wall_parent_s")
    if r.get("user_s") is not None and r.get("sys_s") is not None:
        rec["cpu_s"] = r["user_s"] + r["sys_s"]
    if r.get("rc") != 0:
        rec["status"] = "timeout" if r.get("timed_out") else "failed"
        why = (f"timed out after {a.timeout} s" if r.get("timed_out")
               else f"killed by signal {r['signal']}" if r.get("signal")
               else f"exit status {r.get('exit_status', r.get('rc'))}")
        tail = _last_lines(r.get("output_tail", ""), 6)
        rec["error"] = r.get("error") or (why + (": " + tail if tail else ""))
        _cleanup(wd, tag, a.keep_vectors)
        return rec

    # ------------------------------------------------------------- time split
    vocab_s = train_s = None
    if system in W2V_RUNS or system in GENSIM_RUNS:
        try:
            rep = json.loads(report.read_text())
        except (OSError, ValueError) as e:
            rec.update(status="failed", error=f"no/invalid --report-json ({e}); output: "
                       + _last_lines(r.get("output_tail", ""), 4))
            _cleanup(wd, tag, a.keep_vectors)
            return rec
        rec["child_report"] = rep
        vocab_s, train_s = rep.get("vocab_seconds"), rep.get("train_seconds")
        rec["reported_words"] = rep.get("corpus_words")
        if system == "gensim-iter":
            rec["reader"] = rep.get("reader")
        raw = rep.get("trained_raw_words")
        if raw is not None and raw < 0.9 * ctx.tokens * a.epochs:
            rec["warning"] = (f"trained on only {raw:,} raw words of {ctx.tokens * a.epochs:,} "
                              "(corpus x epochs)")
            print(f"warning: {system}: {rec['warning']}", file=sys.stderr)
    elif system == "word2vec-c":
        m = r["markers"]
        if "train_start" in m and "train_end" in m:
            vocab_s = m["train_start"]
            train_s = m["train_end"] - m["train_start"]
        rec["split_method"] = "stdout timestamps (first/last 'Alpha:' progress line)"
        rec["vocab_scan_seconds"] = m.get("vocab_scanned")
        head = r.get("output_head", "")
        for line in head.splitlines():
            if line.startswith("Words in train file:"):
                rec["reported_words"] = int(line.split(":")[1])
            if line.startswith("Vocab size:"):
                rec["reported_vocab"] = int(line.split(":")[1])
    elif system == "fasttext":
        m = r["markers"]
        if "vocab_done" in m and "train_end" in m:
            vocab_s = m["vocab_done"]
            train_s = m["train_end"] - m["vocab_done"]
        rec["split_method"] = "stderr timestamps ('Number of labels' .. final 'Progress: 100.0%')"
        for line in (r.get("output_head", "") + "\n" + r.get("output_tail", "")).replace("\r", "\n").splitlines():
            if line.startswith("Number of words:"):
                rec["reported_vocab"] = int(line.split(":")[1])
    if train_s is None or train_s <= 0:
        # cannot split: end-to-end only, words/s approximate
        rec["split_method"] = "end-to-end wall (approximate)"
        train_s = rec["wall_s"]
        rec["approx"] = True
    rec["vocab_seconds"] = vocab_s
    rec["train_seconds"] = train_s
    rec["words_per_sec"] = ctx.tokens * a.epochs / train_s if train_s else None
    # reading the corpus included for every system (see the module docstring)
    rec["words_per_sec_incl_vocab"] = (ctx.tokens * a.epochs / (vocab_s + train_s)
                                       if vocab_s is not None and not rec.get("approx") else None)
    rec["status"] = "ok"

    if not out.exists():
        rec.update(status="failed", error=f"no output vectors at {out}")
        _cleanup(wd, tag, a.keep_vectors)
        return rec
    rec["vectors_mib"] = out.stat().st_size / 2**20
    if system in W2V_RUNS:
        rec["output_sha256"] = hashlib.sha256(out.read_bytes()).hexdigest()
    if evaluate and not a.no_eval:
        try:
            rec["eval"] = evaluate_vectors(out, binary=binary,
                                           analogies=a.analogies if a.analogies else None,
                                           ws353=a.ws353 or None, simlex=a.simlex or None,
                                           restrict_vocab=a.eval_restrict)
        except Exception as e:  # a broken output file must not stop the benchmark
            rec["eval"] = {"error": f"{type(e).__name__}: {e}"}
    if a.keep_vectors:
        rec["vectors"] = str(out)
    _cleanup(wd, tag, a.keep_vectors)
    return rec


def _last_lines(text: str, n: int) -> str:
    lines = [ln for ln in text.replace("\r", "\n").splitlines() if ln.strip()]
    return " | ".join(lines[-n:])


def _cleanup(wd: Path, tag: str, keep_vectors: bool):
    for p in wd.glob(tag + ".*"):
        if keep_vectors and p.suffix in (".bin", ".vec"):
            continue
        try:
            p.unlink()
        except OSError:
            pass


# --------------------------------------------------------------------------- summary

def summarize(runs: list[dict], a) -> tuple[list[dict], list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault((r["model"], r["threads"], r["system"]), []).append(r)
    rows = []
    for m in a.model:
        for t in a.threads:
            for s in a.systems:
                rs = groups.get((m, t, s), [])
                ok = [r for r in rs if r.get("status") == "ok"]
                ev = [r.get("eval") or {} for r in ok]
                rates = [r["words_per_sec"] for r in ok if r.get("words_per_sec")]
                row = {"model": m, "threads": t, "system": s, "n_ok": len(ok), "n": len(rs),
                       "words_per_sec": median([r.get("words_per_sec") for r in ok]),
                       "words_per_sec_min": min(rates, default=None),
                       "words_per_sec_max": max(rates, default=None),
                       "words_per_sec_incl_vocab": median([r.get("words_per_sec_incl_vocab") for r in ok]),
                       "train_seconds": median([r.get("train_seconds") for r in ok]),
                       "vocab_seconds": median([r.get("vocab_seconds") for r in ok]),
                       "wall_s": median([r.get("wall_s") for r in ok]),
                       "max_rss_mib": median([r.get("max_rss_mib") for r in ok]),
                       "cpu_s": median([r.get("cpu_s") for r in ok]),
                       "approx": any(r.get("approx") for r in ok)}
                for k in ("analogy", "analogy_sem", "analogy_syn", "analogy_n", "ws353", "simlex",
                          "ws353_oov_pct", "simlex_oov_pct", "vocab_size"):
                    row[k] = median([e.get(k) for e in ev])
                if not ok:
                    row["error"] = next((r.get("error") for r in rs if r.get("error")), None)
                if s == "gensim-iter":
                    row["reader"] = next((r.get("reader") for r in ok if r.get("reader")), None)
                rows.append(row)
    ratios = []
    for m in a.model:
        for t in a.threads:
            sel = {r["system"]: r for r in rows if r["model"] == m and r["threads"] == t and r["n_ok"]}
            g = [sel[s] for s in GENSIM if s in sel and sel[s]["words_per_sec"]]
            ref = max(g, key=lambda r: r["words_per_sec"]) if g else None
            w = sel.get("w2v")
            wx = sel.get("w2v-exact")
            c = sel.get("word2vec-c")
            rat = {"model": m, "threads": t, "gensim_best": ref["system"] if ref else None}

            def div(x, y):
                return x / y if (x is not None and y) else None

            def best(rows, key, pick):
                vals = [r[key] for r in rows if r.get(key) is not None]
                return pick(vals) if vals else None
            if w and ref:
                rat["words_per_sec"] = div(w["words_per_sec"], ref["words_per_sec"])
                # each against the gensim mode that does best on it (not the words/s reference)
                rat["wall"] = div(w["wall_s"], best(g, "wall_s", min))
                rat["rss"] = div(w["max_rss_mib"], best(g, "max_rss_mib", min))
                rat["words_per_sec_incl_vocab"] = div(w.get("words_per_sec_incl_vocab"),
                                                      best(g, "words_per_sec_incl_vocab", max))
            base = sel.get("w2v-base")
            if w and base:
                rat["words_per_sec_vs_base"] = div(w["words_per_sec"], base["words_per_sec"])
                rat["same_vectors_as_base"] = _same_outputs(runs, m, t)
            if wx and ref:
                rat["exact_words_per_sec"] = div(wx["words_per_sec"], ref["words_per_sec"])
            if w and c:
                rat["words_per_sec_vs_c"] = div(w["words_per_sec"], c["words_per_sec"])
                rat["words_per_sec_incl_vocab_vs_c"] = div(w.get("words_per_sec_incl_vocab"),
                                                           c.get("words_per_sec_incl_vocab"))
            if wx and c:
                rat["exact_words_per_sec_vs_c"] = div(wx["words_per_sec"], c["words_per_sec"])
            ratios.append(rat)
    return rows, ratios


def _same_outputs(runs: list[dict], model: str, threads: int):
    """Whether every repeat of w2v wrote the same file as the same repeat of w2v-base (None if unpaired)."""
    def hashes(system):
        return {r.get("seed", 0) if r.get("seed") is not None else i: r.get("output_sha256")
                for i, r in enumerate(x for x in runs if x["system"] == system and x["model"] == model
                                      and x["threads"] == threads and x.get("status") == "ok")}
    mine, base = hashes("w2v"), hashes("w2v-base")
    pairs = [(mine[k], base[k]) for k in mine if k in base]
    return all(a == b for a, b in pairs) if pairs else None


def _f(x, fmt="{:.2f}", none="–"):
    return none if x is None else fmt.format(x)


def render_markdown(meta: dict, rows: list[dict], ratios: list[dict]) -> str:
    mi, cfg = meta["machine"], meta["config"]
    L = [f"# w2v training benchmark — {meta['timestamp']}", ""]
    L.append(f"- CPU: **{mi['cpu_model']}**, {mi['physical_cores']} cores / {mi['logical_cpus']} logical CPUs "
             f"({', '.join(mi['simd'])}); {mi['mem_gib']} GiB RAM; load average at start "
             f"{', '.join(f'{x:.2f}' for x in mi['loadavg'] or [])}")
    L.append(f"- corpus: `{cfg['corpus']}` — {meta['corpus_tokens']:,} tokens, "
             f"{meta['corpus_bytes']/1e6:,.1f} MB")
    L.append(f"- params: dim {cfg['dim']}, window {cfg['window']}, negative {cfg['negative']}, hs 0, "
             f"sample {cfg['sample']}, min-count {cfg['min_count']}, epochs {cfg['epochs']}, "
             f"alpha {cfg['alpha']} (auto = 0.025 sg / 0.05 cbow, word2vec.c's defaults)")
    v = mi["versions"]
    L.append(f"- versions: w2v {meta.get('w2v_version')} (repo {meta['git']}), gensim {v.get('gensim')}, "
             f"numba {v.get('numba')}, numpy {v.get('numpy')}, word2vec.c (PyPI word2vec {v.get('word2vec')}), "
             f"fastText CLI `{meta.get('fasttext_bin')}`")
    L.append(f"- median of {cfg['repeats']} runs (interleaved); words/s = raw corpus tokens × epochs ÷ "
             f"training seconds; wall and peak RSS of the whole child process (`/usr/bin/time -v`)")
    if meta.get("w2v_settings"):
        ws = meta["w2v_settings"]
        keys = [k for k in ("exact", "cbow_mean", "ns_exponent", "min_alpha", "max_sentence_length",
                            "memory_budget", "tokenizer") if k in ws]
        L.append("- w2v settings (from its report): " + ", ".join(f"{k}={ws[k]}" for k in keys)
                 + ("" if ws.get("exact") else " (exact=False: skip-gram shares one set of negatives across "
                    "a centre word's window, and 2+ threads train replicas of the frequent rows; "
                    "word2vec.c and gensim draw fresh negatives per pair; system 'w2v-exact' runs --exact)"))
    if meta.get("gensim_file_note"):
        L.append(f"- {meta['gensim_file_note']} — gensim 4.4's corpus_file mode trains on only the first "
                 "~10k words of a single-line file, and drops words when a batch exceeds 10,000")
    if cfg.get("vary_seed"):
        L.append(f"- --vary-seed: repeat r used seed 1 + r (seeds 1-{cfg['repeats']}; word2vec.c has no "
                 "seed option), so quality figures are medians over seeds")
    L.append("- analogy: gensim `evaluate_word_analogies` (restrict_vocab "
             f"{cfg['eval_restrict']}), n = questions answered; WS-353 / SimLex-999: Spearman ρ")
    L.append("")
    L.append("| model | thr | system | train words/s | vocab+train words/s | train s | vocab s | wall s "
             "| peak RSS MiB | CPU s | analogy % (n) | WS-353 ρ | SimLex ρ | runs ok |")
    L.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["n_ok"] == 0:
            L.append(f"| {r['model']} | {r['threads']} | {r['system']} | **failed** | | | | | | | | | | "
                     f"0/{r['n']} |")
            continue
        sysname = r["system"] + (f" ({r['reader']})" if r.get("reader") else "") + (" ≈" if r["approx"] else "")
        an = "–" if r["analogy"] is None else f"{100 * r['analogy']:.1f} ({_f(r['analogy_n'], '{:.0f}')})"
        L.append(f"| {r['model']} | {r['threads']} | {sysname} | {_f(r['words_per_sec'], '{:,.0f}')} | "
                 f"{_f(r.get('words_per_sec_incl_vocab'), '{:,.0f}')} | {_f(r['train_seconds'])} | "
                 f"{_f(r['vocab_seconds'])} | {_f(r['wall_s'])} | "
                 f"{_f(r['max_rss_mib'], '{:,.0f}')} | {_f(r['cpu_s'], '{:.1f}')} | {an} | "
                 f"{_f(r['ws353'], '{:.3f}')} | {_f(r['simlex'], '{:.3f}')} | {r['n_ok']}/{r['n']} |")
    L.append("")
    if any(("words_per_sec" in x) or ("words_per_sec_vs_c" in x) or ("exact_words_per_sec" in x)
           for x in ratios):
        L.append("Ratios (w2v ÷ the best gensim mode on each measure, same model and threads: the higher "
                 "train words/s (the 'gensim ref'), the higher vocab+train words/s, the lower wall, the "
                 "lower RSS; >1 is better for words/s, <1 is better for wall and RSS). 'vocab+train' "
                 "includes reading and tokenizing the corpus for every system (w2v does it once, before "
                 "training; the peers also inside their training). 'w2v-exact' is w2v with --exact "
                 "(word2vec.c's per-pair negatives):")
        L.append("")
        L.append("| model | thr | gensim ref | words/s ratio | vocab+train words/s ratio | wall ratio | RSS ratio "
                 "| words/s vs word2vec.c | vocab+train vs word2vec.c | w2v-exact words/s ratio "
                 "| w2v-exact vs word2vec.c |")
        L.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for x in ratios:
            L.append(f"| {x['model']} | {x['threads']} | {x.get('gensim_best') or '–'} | "
                     f"{_f(x.get('words_per_sec'))} | {_f(x.get('words_per_sec_incl_vocab'))} | "
                     f"{_f(x.get('wall'))} | {_f(x.get('rss'))} | "
                     f"{_f(x.get('words_per_sec_vs_c'))} | {_f(x.get('words_per_sec_incl_vocab_vs_c'))} | "
                     f"{_f(x.get('exact_words_per_sec'))} | {_f(x.get('exact_words_per_sec_vs_c'))} |")
        L.append("")
    based = [x for x in ratios if x.get("words_per_sec_vs_base") is not None]
    if based:
        L.append("Before/after (w2v ÷ w2v-base, the checkout of `--base-cmd`, same runs; 'same file': every "
                 "repeat wrote byte-identical vectors):")
        L.append("")
        L.append("| model | thr | words/s ratio | same file |")
        L.append("|---|---:|---:|---|")
        for x in based:
            same = {True: "yes", False: "**no**", None: "–"}[x.get("same_vectors_as_base")]
            L.append(f"| {x['model']} | {x['threads']} | {_f(x['words_per_sec_vs_base'], '{:.3f}')} | {same} |")
        L.append("")
    fails = [r for r in rows if r["n_ok"] == 0 and r.get("error")]
    if fails:
        L.append("Failures:")
        L.append("")
        for r in fails:
            L.append(f"- {r['model']} t={r['threads']} {r['system']}: `{str(r['error'])[:300]}`")
        L.append("")
    L.append("Notes: word2vec.c's and fastText's vocab/train split come from timestamps of their progress "
             "output (word2vec.c's 'vocab' includes InitNet and its 1e8-entry unigram table, whose 400 MB "
             "count in its RSS); gensim's build_vocab includes weight init and cum table; "
             "'≈' marks end-to-end wall used as training time. fastText's subsampling formula differs "
             "from word2vec.c/gensim.")
    return "\n".join(L) + "\n"


def make_chart(path: Path, rows: list[dict], title: str) -> str | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not importable; no chart (pip install matplotlib)"
    ok = [r for r in rows if r["n_ok"]]
    if not ok:
        return "no successful runs; no chart"
    configs = []
    for r in ok:
        c = (r["model"], r["threads"])
        if c not in configs:
            configs.append(c)
    systems = []
    for r in ok:
        if r["system"] not in systems:
            systems.append(r["system"])
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    width = 0.8 / max(1, len(systems))
    for j, s in enumerate(systems):
        xs, ys, accs = [], [], []
        for i, c in enumerate(configs):
            r = next((r for r in ok if (r["model"], r["threads"]) == c and r["system"] == s), None)
            if r is None:
                continue
            xs.append(i + (j - (len(systems) - 1) / 2) * width)
            ys.append((r["words_per_sec"] or 0) / 1e6)
            accs.append(100 * (r["analogy"] or 0))
        axes[0].bar(xs, ys, width, label=s)
        axes[1].bar(xs, accs, width, label=s)
    labels = [f"{m}\n{t} thr" for m, t in configs]
    for ax, yl in zip(axes, ["training throughput (M words/s)", "analogy accuracy (%)"]):
        ax.set_xticks(range(len(configs)))
        ax.set_xticklabels(labels)
        ax.set_ylabel(yl)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


# --------------------------------------------------------------------------- main

def redraw_chart(path: Path) -> int:
    """The chart of a saved run, from its JSON, as the run would have drawn it."""
    saved = json.loads(path.read_text())
    meta = saved["meta"]
    title = (f"{Path(meta['config']['corpus']).name} ({meta['corpus_tokens'] / 1e6:.1f}M tokens), "
             f"{meta['machine']['cpu_model']}, median of {meta['config']['repeats']}")
    msg = make_chart(path.with_suffix(".png"), saved["summary"], title)
    print(msg or f"wrote {path.with_suffix('.png')}", file=sys.stderr)
    return 1 if msg else 0


def main(argv=None) -> int:
    a = parse_args(argv)
    if a.chart:
        return redraw_chart(Path(a.chart))
    if a.corpus is None:
        print("error: give a corpus (or --chart JSON)", file=sys.stderr)
        return 2
    corpus = Path(a.corpus)
    if not corpus.is_file():
        print(f"error: corpus {corpus} not found", file=sys.stderr)
        return 2
    if not os.access(TIME_BIN, os.X_OK):
        print(f"error: {TIME_BIN} missing (apt-get install -y time)", file=sys.stderr)
        return 2
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = out_dir / (f"train-{stamp}" + (f"-{a.tag}" if a.tag else ""))

    mi = machine_info()
    print(f"CPU: {mi['cpu_model']} — {mi['physical_cores']} cores / {mi['logical_cpus']} logical CPUs "
          f"({', '.join(mi['simd'])}), load average {mi['loadavg']}", file=sys.stderr)
    if mi["loadavg"] and mi["loadavg"][0] > 0.5:
        print("warning: the machine is not idle (1-min load average > 0.5); timings will be noisy",
              file=sys.stderr)
    t = time.perf_counter()
    tokens = count_tokens(corpus, cache_file=Path.home() / ".cache" / "w2v-bench" / "token-counts.json")
    print(f"corpus {corpus}: {tokens:,} tokens ({time.perf_counter() - t:.1f} s to count)", file=sys.stderr)

    workdir = Path(tempfile.mkdtemp(prefix="bench-train-", dir=str(out_dir)))
    ctx = Ctx(a, tokens, workdir)
    meta = {"timestamp": stamp, "machine": mi, "git": git_describe(),
            "config": {**{k: v for k, v in vars(a).items()}, "corpus": str(corpus.resolve())},
            "corpus_tokens": tokens, "corpus_bytes": corpus.stat().st_size,
            "word2vec_bin": ctx.word2vec_bin, "fasttext_bin": ctx.fasttext_bin,
            "w2v_cmd": ctx.w2v_cmd, "words_per_sec_definition":
                "raw corpus tokens (whitespace tokens of the file) x epochs / training seconds"}
    try:
        sys.path.insert(0, str(REPO))
        import w2v  # noqa: F401
        meta["w2v_version"] = getattr(w2v, "__version__", None)
    except Exception:
        meta["w2v_version"] = None

    if "gensim-file" in a.systems or "gensim-file-stated" in a.systems:
        note = ctx.prepare_gensim_file_corpus()
        meta["gensim_file_corpus"] = ctx.gensim_file_corpus
        if note:
            meta["gensim_file_note"] = note
            print(note, file=sys.stderr)

    if any(s in a.systems for s in W2V_RUNS):
        ok, text = ctx.probe_w2v()
        if not ok:
            print("warning: 'w2v train --help' failed; w2v runs will probably fail:\n  "
                  + _last_lines(text, 3), file=sys.stderr)
        elif not a.no_warmup:
            warm = workdir / "warmup.txt"
            write_prefix(corpus, warm, 2_000_000)
            for m, system in [(m, s) for m in a.model for s in W2V_RUNS if s in a.systems]:
                if system == "w2v-base" and not ctx.base_cmd:
                    continue
                cmd = cmd_w2v(ctx, m, max(a.threads), workdir / "warmup.bin", workdir / "warmup.json",
                              corpus=str(warm), system=system) + (["--exact"] if system == "w2v-exact" else [])
                t = time.perf_counter()
                p = subprocess.run(cmd, env=ctx.w2v_env, cwd=str(workdir) if system == "w2v-base" else ctx.w2v_cwd,
                                   capture_output=True, text=True)
                print(f"{system} warm-up ({m}): rc {p.returncode}, {time.perf_counter() - t:.1f} s", file=sys.stderr)
            for f in workdir.glob("warmup*"):
                f.unlink()

    runs = []
    total = a.repeats * len(a.model) * len(a.threads) * len(a.systems)
    k = 0
    try:
        for rep in range(a.repeats):
            for m in a.model:
                for th in a.threads:
                    for s in a.systems:
                        k += 1
                        tag = f"{s}-{m}-t{th}-r{rep}"
                        t = time.perf_counter()
                        rec = run_system(ctx, s, m, th, tag,
                                         evaluate=not (a.eval_first_repeat_only and rep > 0),
                                         seed=1 + rep if a.vary_seed else None)
                        rec["repeat"] = rep
                        runs.append(rec)
                        ev = rec.get("eval") or {}
                        if rec.get("status") == "ok":
                            msg = (f"train {rec['train_seconds']:.2f} s, {rec['words_per_sec']:,.0f} words/s, "
                                   f"vocab {_f(rec.get('vocab_seconds'))} s, wall {_f(rec.get('wall_s'))} s, "
                                   f"RSS {_f(rec.get('max_rss_mib'), '{:.0f}')} MiB")
                            if ev.get("analogy") is not None:
                                msg += (f", analogy {100 * ev['analogy']:.1f}% (n={ev.get('analogy_n')}), "
                                        f"ws353 {ev.get('ws353', 0):.3f}, simlex {ev.get('simlex', 0):.3f}")
                            elif ev.get("error"):
                                msg += f", eval error: {ev['error']}"
                        else:
                            msg = f"{rec.get('status', 'failed').upper()}: {rec.get('error')}"
                        print(f"[{k}/{total}] {m} t={th} {s} rep {rep + 1}: {msg} "
                              f"({time.perf_counter() - t:.0f} s)", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("interrupted: summarizing the runs done so far", file=sys.stderr)
    finally:
        if not a.keep_vectors:
            shutil.rmtree(workdir, ignore_errors=True)

    w2v_settings = next(((r.get("child_report") or {}).get("settings") for r in runs
                         if r["system"] == "w2v" and (r.get("child_report") or {}).get("settings")), None)
    if w2v_settings:
        meta["w2v_settings"] = w2v_settings
    meta["w2v_passes_alpha"] = ctx.w2v_has_alpha
    rows, ratios = summarize(runs, a)
    md = render_markdown(meta, rows, ratios)
    print(md)
    base.with_suffix(".md").write_text(md)
    with open(base.with_suffix(".json"), "w") as f:
        json.dump({"meta": meta, "summary": rows, "ratios": ratios, "runs": runs}, f, indent=1, default=str)
    msg = make_chart(base.with_suffix(".png"), rows,
                     f"{corpus.name} ({tokens/1e6:.1f}M tokens), {mi['cpu_model']}, median of {a.repeats}")
    if msg:
        print(msg, file=sys.stderr)
    written = [base.with_suffix(x) for x in (".md", ".json", ".png")]
    print("wrote " + ", ".join(str(p) for p in written if p.exists()), file=sys.stderr)
    return 0 if any(r.get("status") == "ok" for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
