"""Helpers shared by the benchmark scripts (no dependency on the w2v package).

* :func:`machine_info`     CPU model / core count (``lscpu``), kernel, Python and library versions;
* :func:`count_tokens`     whitespace tokens of a file (``wc -w`` for ASCII text), cached;
* :func:`run_timed`        run one child under ``/usr/bin/time -v`` and time marker strings in its output;
* :func:`evaluate_vectors` analogy accuracy + WS-353 / SimLex-999 Spearman with gensim.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EVAL_DIR = REPO / "data" / "eval"
TIME_BIN = "/usr/bin/time"


# --------------------------------------------------------------------------- machine

def _lscpu() -> dict:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True,
                             env={**os.environ, "LC_ALL": "C"}).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    info = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


def _version(mod: str):
    try:
        from importlib.metadata import version
        return version(mod)
    except Exception:
        return None


def machine_info() -> dict:
    ls = _lscpu()
    cpus = int(ls.get("CPU(s)", os.cpu_count() or 0) or 0)
    tpc = int(ls.get("Thread(s) per core", 1) or 1)
    flags = ls.get("Flags", "")
    simd = [f for f in ("avx512f", "avx512_bf16", "avx2", "fma", "avx") if f in flags.split()]
    try:
        mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem_gib = None
    return {
        "cpu_model": ls.get("Model name", platform.processor() or "unknown"),
        "logical_cpus": cpus,
        "threads_per_core": tpc,
        "physical_cores": cpus // tpc if tpc else cpus,
        "sockets": ls.get("Socket(s)"),
        "simd": simd,
        "cpu_mhz": ls.get("CPU MHz") or ls.get("CPU max MHz"),
        "l2": ls.get("L2 cache"), "l3": ls.get("L3 cache"),
        "hypervisor": ls.get("Hypervisor vendor"),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "mem_gib": round(mem_gib, 1) if mem_gib else None,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "versions": {m: _version(m) for m in ("gensim", "numpy", "numba", "scipy", "word2vec",
                                               "fasttext-wheel", "matplotlib")},
        "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def git_describe(repo: Path = REPO) -> str:
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"
    if not head:
        return "no-commit"
    return head + ("-dirty" if dirty else "")


# --------------------------------------------------------------------------- corpus

def count_tokens(path: str | os.PathLike, cache_file: str | os.PathLike | None = None,
                 chunk: int = 1 << 24) -> int:
    """Number of whitespace-separated tokens (same as ``wc -w`` on ASCII text).

    Streamed in 16 MiB chunks, so it works on single-line multi-GB files. The
    count is cached in ``cache_file`` (JSON) keyed by absolute path, size and mtime.
    """
    path = Path(path).resolve()
    st = path.stat()
    key = f"{path}|{st.st_size}|{int(st.st_mtime)}"
    cache = {}
    if cache_file and Path(cache_file).exists():
        try:
            cache = json.loads(Path(cache_file).read_text())
        except (OSError, ValueError):
            cache = {}
        if key in cache:
            return int(cache[key])
    n = 0
    carry = b""
    with open(path, "rb") as f:
        while True:
            buf = f.read(chunk)
            if not buf:
                break
            buf = carry + buf
            # keep a possibly cut last token for the next chunk
            if not buf[-1:].isspace():
                cut = max(buf.rfind(b" "), buf.rfind(b"\n"), buf.rfind(b"\t"), buf.rfind(b"\r"))
                if cut < 0:
                    carry = buf
                    continue
                carry = buf[cut + 1:]
                buf = buf[:cut + 1]
            else:
                carry = b""
            n += len(buf.split())
    n += len(carry.split())
    if cache_file:
        cache[key] = n
        try:
            Path(cache_file).parent.mkdir(parents=True, exist_ok=True)
            Path(cache_file).write_text(json.dumps(cache, indent=1))
        except OSError:
            pass
    return n


def max_line_bytes(path: str | os.PathLike, scan: int = 64 << 20) -> int:
    """Length in bytes of the longest line within the first ``scan`` bytes."""
    longest = cur = 0
    with open(path, "rb") as f:
        got = 0
        while got < scan:
            buf = f.read(1 << 20)
            if not buf:
                break
            got += len(buf)
            start = 0
            while True:
                i = buf.find(b"\n", start)
                if i < 0:
                    cur += len(buf) - start
                    break
                longest = max(longest, cur + i - start)
                cur = 0
                start = i + 1
    return max(longest, cur)


def write_line_broken(src: str | os.PathLike, dst: str | os.PathLike, words_per_line: int = 5001,
                      chunk: int = 1 << 24) -> int:
    """Copy ``src`` to ``dst`` with the same tokens, ``words_per_line`` tokens a line.

    For gensim's ``corpus_file`` mode (gensim 4.4.0, ``word2vec_corpusfile.pyx``):

    * a single-line corpus trains on only the first batch (~10-20k words): the
      epoch loop stops at EOF although the rest of the chunked line is still
      buffered in ``CythonLineSentence.buf_data``;
    * ``next_batch()`` keeps reading lines while the batch has <= 10,000 words
      and its put-back step never puts back a line of a uniform-length file, so
      a batch is the smallest multiple of the line length above 10,000 words; the
      words of a batch beyond ``MAX_SENTENCE_LEN`` = 10,000 (after min_count and
      subsampling) are silently dropped. With 10,000-word lines a batch is 20,000
      words and ~23% of the corpus is lost at sample=1e-3; with 1,000-word lines
      11,000 (loss at sample=0). 5,001-word lines give 10,002-word batches: at
      most 2 words a batch, and only when nothing is subsampled or dropped.

    Returns the number of tokens written. Written to ``dst``.tmp and renamed.
    """
    tmp = str(dst) + ".tmp"
    n = 0
    pending: list[bytes] = []
    carry = b""
    with open(src, "rb") as f, open(tmp, "wb") as out:
        while True:
            buf = f.read(chunk)
            eof = not buf
            buf = carry + buf
            if not eof and not buf[-1:].isspace():
                cut = max(buf.rfind(b" "), buf.rfind(b"\n"), buf.rfind(b"\t"))
                if cut < 0:
                    carry = buf
                    continue
                carry, buf = buf[cut + 1:], buf[:cut + 1]
            else:
                carry = b""
            pending.extend(buf.split())
            full = len(pending) - len(pending) % words_per_line
            for i in range(0, full, words_per_line):
                out.write(b" ".join(pending[i:i + words_per_line]) + b"\n")
            n += full
            pending = pending[full:]
            if eof:
                break
        if pending:
            out.write(b" ".join(pending) + b"\n")
            n += len(pending)
    os.replace(tmp, dst)
    return n


def longest_line_exceeds(path: str | os.PathLike, limit: int = 10 << 20) -> bool:
    """True when the first line of the file is longer than ``limit`` bytes."""
    with open(path, "rb") as f:
        got = 0
        while got <= limit:
            buf = f.read(1 << 20)
            if not buf:
                return False
            i = buf.find(b"\n")
            if i >= 0:
                return got + i > limit
            got += len(buf)
    return True


def write_prefix(src: str | os.PathLike, dst: str | os.PathLike, nbytes: int) -> None:
    """Copy about ``nbytes`` of ``src`` to ``dst``, cut at a word boundary."""
    with open(src, "rb") as f:
        data = f.read(nbytes + 200)
    if len(data) > nbytes:
        cut = data.rfind(b" ", 0, nbytes)
        data = data[:cut if cut > 0 else nbytes]
    with open(dst, "wb") as f:
        f.write(data.rstrip() + b"\n")


# --------------------------------------------------------------------------- child processes

_TIME_KEYS = {
    "Maximum resident set size (kbytes)": "max_rss_kb",
    "User time (seconds)": "user_s",
    "System time (seconds)": "sys_s",
    "Percent of CPU this job got": "cpu_percent",
    "Elapsed (wall clock) time (h:mm:ss or m:ss)": "elapsed",
    "Exit status": "exit_status",
    "Major (requiring I/O) page faults": "major_faults",
    "Voluntary context switches": "vol_ctx",
    "Involuntary context switches": "invol_ctx",
}


def parse_time_v(text: str) -> dict:
    """Parse the report of GNU ``time -v``."""
    res = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Command terminated by signal"):
            res["signal"] = int(line.rsplit(" ", 1)[-1])
            continue
        if ":" not in line:
            continue
        # the elapsed key itself contains colons: split on the LAST ': '
        k, _, v = line.rpartition(": ")
        k = k.strip()
        if k in _TIME_KEYS:
            res[_TIME_KEYS[k]] = v.strip()
    out = {}
    if "max_rss_kb" in res:
        out["max_rss_mib"] = int(res["max_rss_kb"]) / 1024.0
    for k in ("user_s", "sys_s"):
        if k in res:
            out[k] = float(res[k])
    if "cpu_percent" in res:
        try:
            out["cpu_percent"] = float(res["cpu_percent"].rstrip("%"))
        except ValueError:
            out["cpu_percent"] = None
    if "elapsed" in res:
        parts = [float(p) for p in res["elapsed"].split(":")]
        sec = 0.0
        for p in parts:
            sec = sec * 60 + p
        out["wall_s"] = sec
    for k in ("exit_status", "major_faults", "vol_ctx", "invol_ctx"):
        if k in res:
            out[k] = int(res[k])
    if "signal" in res:
        out["signal"] = res["signal"]
    return out


class _StreamWatcher(threading.Thread):
    """Read a pipe, keep a bounded tail, and time the first/last match of regexes."""

    def __init__(self, fd, t0, markers, tee=None, keep=64 << 10):
        super().__init__(daemon=True)
        self.fd, self.t0, self.tee, self.keep = fd, t0, tee, keep
        self.markers = {name: (re.compile(rx), mode) for name, (rx, mode) in (markers or {}).items()}
        self.times: dict[str, float] = {}
        self.tail = b""
        self.head = b""

    def run(self):
        prev = ""
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            now = time.perf_counter() - self.t0
            if self.tee is not None:
                try:
                    self.tee.write(chunk)
                    self.tee.flush()
                except (OSError, ValueError):
                    pass
            if len(self.head) < 8192:
                self.head += chunk[: 8192 - len(self.head)]
            self.tail = (self.tail + chunk)[-self.keep:]
            text = chunk.decode("utf-8", "replace")
            window = prev + text
            for name, (rx, mode) in self.markers.items():
                if mode == "first" and name in self.times:
                    continue
                if rx.search(window):
                    self.times[name] = now
            prev = window[-256:]
        try:
            os.close(self.fd)
        except OSError:
            pass


def run_timed(cmd: list[str], *, env: dict | None = None, cwd=None, timeout: float | None = None,
              markers: dict | None = None, time_report: str | os.PathLike, echo: bool = False) -> dict:
    """Run ``cmd`` under ``/usr/bin/time -v -o time_report`` (own session / process group).

    ``markers``: {name: (regex, 'first'|'last')} searched in stdout+stderr; the
    result's ``markers`` maps each matched name to seconds since just before the
    child was started. Returns a dict with rc, parent-measured wall, the parsed
    ``time -v`` fields (``max_rss_mib``, ``wall_s``, ``user_s``, ``sys_s`` ...),
    and the head/tail of the output.
    """
    full = [TIME_BIN, "-v", "-o", str(time_report)] + [str(c) for c in cmd]
    out_r, out_w = os.pipe()
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(full, stdout=out_w, stderr=out_w, stdin=subprocess.DEVNULL,
                             env=env, cwd=cwd, start_new_session=True)
    except OSError as e:
        os.close(out_r)
        os.close(out_w)
        return {"rc": None, "error": f"cannot start: {e}", "cmd": full}
    os.close(out_w)
    w = _StreamWatcher(out_r, t0, markers, tee=sys.stderr.buffer if echo else None)
    w.start()
    timed_out = False
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        rc = p.wait()
    except KeyboardInterrupt:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
        raise
    wall_parent = time.perf_counter() - t0
    w.join(timeout=10)
    res = {"rc": rc, "timed_out": timed_out, "wall_parent_s": wall_parent, "cmd": full,
           "markers": dict(w.times),
           "output_head": w.head.decode("utf-8", "replace"),
           "output_tail": w.tail[-4000:].decode("utf-8", "replace")}
    try:
        res.update(parse_time_v(Path(time_report).read_text()))
    except OSError:
        pass
    return res


# --------------------------------------------------------------------------- quality

def evaluate_vectors(path: str | os.PathLike, *, binary: bool, analogies: str | None,
                     ws353: str | None, simlex: str | None, restrict_vocab: int = 30000) -> dict:
    """Load word2vec-format vectors with gensim and score them.

    analogy: ``KeyedVectors.evaluate_word_analogies(restrict_vocab=restrict_vocab)``
    (gensim's 3CosAdd, case-insensitive; questions with a word outside the first
    ``restrict_vocab`` words are skipped, their count is reported);
    similarity: ``evaluate_word_pairs`` Spearman rho and OOV percentage.
    """
    from gensim.models import KeyedVectors  # imported lazily: the parent does not need it otherwise

    t = time.perf_counter()
    kv = KeyedVectors.load_word2vec_format(str(path), binary=binary, unicode_errors="ignore")
    res = {"vocab_size": len(kv.index_to_key), "dim": kv.vector_size}
    if analogies:
        # word2vec.c and fastText write their end-of-line token '</s>' first: count only real
        # words, so that every system's analogies use the same number of candidate words
        eos = "</s>" in kv.index_to_key[:restrict_vocab]
        res["restrict_vocab"] = restrict_vocab + eos
        score, sections = kv.evaluate_word_analogies(analogies, restrict_vocab=restrict_vocab + eos)
        total = next((s for s in sections if s["section"] == "Total accuracy"), None)
        n = len(total["correct"]) + len(total["incorrect"]) if total else None
        res["analogy"] = float(score)
        res["analogy_n"] = n
        sem = [s for s in sections if s["section"] != "Total accuracy" and not s["section"].startswith("gram")]
        syn = [s for s in sections if s["section"].startswith("gram")]
        for name, secs in (("analogy_sem", sem), ("analogy_syn", syn)):
            c = sum(len(s["correct"]) for s in secs)
            i = sum(len(s["incorrect"]) for s in secs)
            res[name] = c / (c + i) if c + i else None
    for key, fname in (("ws353", ws353), ("simlex", simlex)):
        if fname:
            pearson, spearman, oov = kv.evaluate_word_pairs(fname)
            rho = spearman[0] if isinstance(spearman, tuple) else getattr(spearman, "statistic", spearman[0])
            res[key] = float(rho)
            res[key + "_oov_pct"] = float(oov)
    res["eval_seconds"] = time.perf_counter() - t
    return res


def byte_compile(*packages: str) -> None:
    """Write the bytecode of the importable ``packages``, as ``pip install`` does, so that a timed
    command does not compile their sources on every run (an editable install under
    ``PYTHONDONTWRITEBYTECODE=1`` keeps none: 0.15 s more per ``w2v`` command)."""
    import compileall
    import importlib.util
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            compileall.compile_dir(os.path.dirname(spec.origin), quiet=1)


def median(values):
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def which_real(name: str, extra_dirs=()) -> str | None:
    """Locate an executable, preferring this interpreter's scripts dir over pyenv shims."""
    import sysconfig
    for d in [sysconfig.get_path("scripts"), *extra_dirs]:
        cand = Path(d) / name
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return shutil.which(name)
