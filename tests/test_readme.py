"""Every command README.md shows runs as written.

The CLI examples are the lines of its ``sh`` code blocks that start with ``w2v`` or pipe into
``w2v``. They run in README order, in one folder that holds the files they name (``corpus.txt``,
``more.txt.gz``, ``texts/``, ...), made from the bundled corpus, and each must exit 0. The
``python`` blocks run there too, in their place. The lines that start with ``dask`` start the
cluster that the Dask example trains on; ``HOST`` and the port 8786 become a free local address.
The two install commands are what CI itself runs (``.ci/run``), so they are not run here.

Fast checks: every option a README command uses exists in that command's ``--help``, and the
option table lists every option of ``w2v train --help``.
"""
import gzip
import lzma
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from .conftest import ROOT

README = ROOT / "README.md"
BUNDLED = ROOT / "data" / "corpus-small.txt.xz"
EVAL = ROOT / "data" / "eval"
COMMAND_TIMEOUT = 600   # the first command may compile the kernels (a minute on a busy machine)


def readme_blocks():
    """``[(language, first line number, [lines])]`` of the fenced code blocks of README.md."""
    blocks, current = [], None
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            if current is None:
                current = (line[3:].strip(), number + 1, [])
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current[2].append(line)
    assert current is None, "README.md has an unclosed code block"
    return blocks


def is_w2v_command(line):
    return line.startswith("w2v ") or line == "w2v" or bool(re.search(r"\|\s*w2v\b", line))


def readme_steps():
    """The README's runnable steps in order: ``(kind, line number, text)``, kind being
    ``"w2v"`` (a CLI example), ``"dask"`` (starts a scheduler or worker) or ``"python"``."""
    steps = []
    for lang, first, lines in readme_blocks():
        if lang == "python":
            steps.append(("python", first, "\n".join(lines)))
        elif lang == "sh":
            for offset, line in enumerate(lines):
                line = line.strip()
                if is_w2v_command(line):
                    steps.append(("w2v", first + offset, line))
                elif line.startswith("dask "):
                    steps.append(("dask", first + offset, line))
    return steps


def needs_cluster(text):
    return "HOST" in text


def w2v_bin_dir(tmp_path):
    """A folder holding a ``w2v`` executable: the console script installed beside this Python,
    or else a small script that starts the CLI with it."""
    found = shutil.which("w2v", path=os.pathsep.join([os.path.dirname(sys.executable),
                                                      os.environ.get("PATH", "")]))
    if found:
        return os.path.dirname(found)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "w2v"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "import sys\ntry:\n'
                      f'    from w2v_cli.main import main\nexcept ImportError:\n'
                      f'    from cli.main import main\nsys.argv[0] = \'w2v\'\nmain()" "$@"\n')
    script.chmod(0o755)
    return str(bin_dir)


def environment(tmp_path):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([w2v_bin_dir(tmp_path), os.path.dirname(sys.executable), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def make_files(folder):
    """The files README's examples name, cut from the bundled corpus (a few hundred thousand words:
    enough for the words the queries ask about, small enough to train in seconds)."""
    with lzma.open(BUNDLED, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    corpus, more = lines[::6], lines[1::30]   # every 6th paragraph: every book, ~300k words
    (folder / "corpus.txt").write_text("".join(corpus), encoding="utf-8")
    (folder / "more.txt").write_text("".join(more), encoding="utf-8")
    with gzip.open(folder / "more.txt.gz", "wt", encoding="utf-8") as f:
        f.write("".join(more))
    with lzma.open(folder / "corpus.xz", "wt", encoding="utf-8") as f:
        f.write("".join(corpus))
    (folder / "texts").mkdir()
    (folder / "texts" / "a.txt").write_text("".join(lines[2::30]), encoding="utf-8")
    with lzma.open(folder / "texts" / "b.txt.xz", "wt", encoding="utf-8") as f:
        f.write("".join(lines[3::30]))
    shutil.copy(EVAL / "questions-words.txt", folder / "questions.txt")
    shutil.copy(EVAL / "wordsim353.tsv", folder / "pairs.tsv")


def run_step(kind, text, cwd, env):
    if kind == "python":
        cmd = [sys.executable, "-c", text]
    else:
        cmd = ["bash", "-o", "pipefail", "-c", text]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)


def describe(line, text, res):
    tail = (res.stdout + res.stderr).strip().splitlines()[-5:]
    return f"README.md:{line}: {text!r} exited {res.returncode}\n    " + "\n    ".join(tail)


# --------------------------------------------------------------------------- fast checks
def help_options(env, *command):
    res = subprocess.run(["w2v", *command, "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", res.stdout))


def test_readme_shows_the_commands_of_every_section():
    steps = readme_steps()
    commands = [text for kind, _, text in steps if kind == "w2v"]
    for sub in ("train", "similar", "analogy", "eval", "convert", "info", "devices"):
        assert any(re.search(rf"\bw2v {sub}\b", c) for c in commands), sub
    assert any(c.startswith("w2v train") and "--tokenizer simple --lowercase" in c for c in commands)
    first_train = next(c for c in commands if c.startswith("w2v train"))
    assert "--tokenizer simple --lowercase" in first_train
    assert any(kind == "dask" and text.startswith("dask scheduler") for kind, _, text in steps)
    assert any(kind == "dask" and text.startswith("dask worker") for kind, _, text in steps)
    assert any("--scheduler tcp://HOST:8786" in c for c in commands)
    assert any("--dask-workers" in c for c in commands)
    api = [text for kind, _, text in steps if kind == "python"][0]
    start = README.read_text(encoding="utf-8").splitlines().index("```python") + 1
    assert start <= 80, "the Python API must come within README's first 80 lines"
    for name in ("Word2Vec(", ".train(", "most_similar", ".save(", "Word2Vec.load(", "w2v.load("):
        assert name in api, name


def test_every_option_a_readme_command_uses_exists(tmp_path):
    env = environment(tmp_path)
    known = {}
    for kind, line, text in readme_steps():
        if kind != "w2v":
            continue
        words = text.split("#")[0].split("|")[-1].split()
        sub = words[1] if len(words) > 1 else None
        if sub is None or sub.startswith("-"):
            continue
        if sub not in known:
            known[sub] = help_options(env, sub)
        used = {w for w in words[2:] if w.startswith("-") and w != "-"}
        assert used <= known[sub], f"README.md:{line}: {sorted(used - known[sub])} not in `w2v {sub} --help`"


def test_the_option_table_lists_every_train_option(tmp_path):
    options = help_options(environment(tmp_path), "train")
    text = README.read_text(encoding="utf-8")
    table = "\n".join(line for line in text.splitlines() if line.startswith("| `"))
    listed = set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", table))
    assert options <= listed, f"missing from README's option table: {sorted(options - listed)}"


def test_the_documents_links_resolve():
    """Every relative link of README.md, docs/*.md and benchmarks/RESULTS.md names a file that exists."""
    documents = [README, ROOT / "benchmarks" / "RESULTS.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for doc in documents:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            path = target.split("#")[0]
            if not path or "://" in target:
                continue
            if not (doc.parent / path).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not broken, broken


# --------------------------------------------------------------------------- the examples, run
@pytest.mark.slow
def test_every_readme_example_runs_as_written(tmp_path):
    """Each CLI example and Python block, in README order, exits 0 (those on a Dask cluster:
    the next test; those on a GPU only where one is usable)."""
    folder = tmp_path / "work"
    folder.mkdir()
    make_files(folder)
    env = environment(tmp_path)
    steps = [s for s in readme_steps() if s[0] != "dask" and not needs_cluster(s[2])]
    assert len(steps) >= 15
    failures, skipped = [], []
    for kind, line, text in steps:
        if "--device cuda" in text and not cuda_usable(env):
            skipped.append(text)
            continue
        if text.startswith("xzcat") and shutil.which("xzcat") is None:
            skipped.append(text)
            continue
        res = run_step(kind, text, folder, env)
        if res.returncode != 0:
            failures.append(describe(line, text, res))
    assert not failures, "\n".join(failures)
    assert len(skipped) <= 1, skipped


def cuda_usable(env):
    import json
    res = subprocess.run(["w2v", "devices", "--json"], env=env, capture_output=True, text=True, timeout=120)
    return any(d.get("kind") != "cpu" and d.get("usable") for d in json.loads(res.stdout))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the Dask scheduler ended"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"no Dask scheduler on port {port} after {timeout} s")


@pytest.mark.slow
def test_the_dask_example_runs_on_the_cluster_it_starts(tmp_path):
    """``dask scheduler``, ``dask worker`` and ``w2v train --scheduler`` as README shows them, on
    this machine (HOST: 127.0.0.1, a free port for 8786)."""
    pytest.importorskip("distributed")
    folder = tmp_path / "work"
    folder.mkdir()
    make_files(folder)
    env = environment(tmp_path)
    port = free_port()

    def local(text):
        return text.replace("tcp://HOST:8786", f"tcp://127.0.0.1:{port}").replace("--port 8786", f"--port {port}")

    steps = [s for s in readme_steps() if s[0] == "dask" or needs_cluster(s[2])]
    assert [k for k, _, _ in steps].count("dask") == 2 and len(steps) >= 3
    started = []
    try:
        for kind, line, text in steps:
            text = local(text)
            if kind == "dask":
                proc = subprocess.Popen(["bash", "-c", "exec " + text.split("#")[0]], cwd=folder, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
                started.append(proc)
                if text.startswith("dask scheduler"):
                    wait_for_port(port, proc)
                continue
            res = run_step(kind, text, folder, env)
            assert res.returncode == 0, describe(line, text, res)
    finally:
        for proc in reversed(started):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(started):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
