"""An installed w2v: the bundled data in the package, the kernels' cache when the package cannot be written.

The wheel test builds a wheel of this checkout (``pip wheel --no-deps``) and installs it
into a folder, as ``pip install .`` does into site-packages.  The read-only tests run a
copy of the package that the user running it cannot write: as root they switch to the
user ``nobody`` (``setpriv``), since root may write anywhere; as another user the folder's
permissions bind by themselves.  ``.ci/run`` also installs the wheel in a fresh virtual
environment and runs the README's ``w2v train`` and ``w2v eval`` there.
"""
import importlib
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import pytest

from w2v.kernels import cache

from .conftest import ROOT

DATA_FILES = ("corpus-small.txt.xz", "corpus-small.books.tsv", "eval/README.md", "eval/questions-words.txt",
              "eval/wordsim353.tsv", "eval/simlex999.txt")
SKIP_COPY = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.nbi", "*.nbc",
                                   ".pytest_cache", "results")


# --------------------------------------------------------------------------- the bundled data


def test_the_bundled_data_is_the_package_w2v_data():
    # `pip install .` left data/ out of site-packages: the bundled corpus and evaluation sets are
    # now package data of w2v.data, found with importlib.resources (the folder data/ here)
    from w2v.vectors.evaluate import default_eval_paths
    from w2v_cli.train import BUNDLED_CORPUS

    data = Path(importlib.import_module("w2v.data").__file__).resolve().parent
    assert data == ROOT / "data"
    assert all((data / name).is_file() for name in DATA_FILES)
    assert BUNDLED_CORPUS == data / "corpus-small.txt.xz"
    found = default_eval_paths()
    assert found["analogies"] == [data / "eval" / "questions-words.txt"]
    assert found["pairs"] == [data / "eval" / "wordsim353.tsv", data / "eval" / "simlex999.txt"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from a copy of this checkout (the build writes build/ and *.egg-info there)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=SKIP_COPY)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = (tmp / "dist").glob("w2v-*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_holds_w2v_w2v_cli_and_the_data_and_no_top_level_cli(wheel, tmp_path):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"w2v", "w2v_cli"}
    assert all(f"w2v/data/{name}" in names for name in DATA_FILES)
    assert "w2v/kernels/cpu.py" in names and "w2v_cli/main.py" in names
    # installed (not editable), the code finds the data inside the installed package
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    probe = ("import w2v, w2v_cli.train as t; from w2v.vectors.evaluate import default_eval_paths as d; "
             "p = d(); print(w2v.__file__); print(t.BUNDLED_CORPUS, t.BUNDLED_CORPUS.is_file()); "
             "print(len(p['analogies']), len(p['pairs']), *p['analogies'])")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(target)))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == str(target / "w2v" / "__init__.py")
    assert lines[1] == f"{target / 'w2v' / 'data' / 'corpus-small.txt.xz'} True"
    assert lines[2] == f"1 2 {target / 'w2v' / 'data' / 'eval' / 'questions-words.txt'}"


# --------------------------------------------------------------------------- the kernels' cache


def test_a_writable_package_or_a_user_setting_leaves_numba_alone(tmp_path, monkeypatch):
    env = {"HOME": str(tmp_path)}
    assert cache.choose_cache_dir(environ=env) is None and "NUMBA_CACHE_DIR" not in env   # this checkout
    monkeypatch.setattr(cache, "folder_writable", lambda folder: False)
    env = {"HOME": str(tmp_path), "NUMBA_CACHE_DIR": "/somewhere"}
    assert cache.choose_cache_dir(environ=env) is None and env["NUMBA_CACHE_DIR"] == "/somewhere"


def test_a_read_only_package_caches_in_the_user_cache_directory(tmp_path, monkeypatch):
    # writability simulated here; the tests below run a really read-only copy
    monkeypatch.setattr(cache, "folder_writable", lambda folder: False)
    env = {"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert cache.choose_cache_dir(environ=env) == str(tmp_path / "xdg" / "w2v") == env["NUMBA_CACHE_DIR"]
    assert (tmp_path / "xdg" / "w2v").is_dir()
    env = {"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": "relative"}   # ignored, as XDG says
    assert cache.choose_cache_dir(environ=env) == str(tmp_path / "home" / ".cache" / "w2v")
    # no cache directory can be made: a private temporary one (removed at exit)
    blocked = tmp_path / "file"
    blocked.write_text("")
    env = {"HOME": str(blocked)}
    path = cache.choose_cache_dir(environ=env)
    assert Path(path).parent == Path(tempfile.gettempdir()) and Path(path).name.startswith("w2v-numba-cache-")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o700


def _world_readable_copy():
    """A copy of the package (and its data) in a fresh folder every user may read; not writable by anyone."""
    top = Path(tempfile.mkdtemp(prefix="w2v-readonly-"))
    site = top / "site"
    shutil.copytree(ROOT / "w2v", site / "w2v", ignore=SKIP_COPY)
    shutil.copytree(ROOT / "cli", site / "w2v_cli", ignore=SKIP_COPY)
    shutil.copytree(ROOT / "data", site / "w2v" / "data", ignore=SKIP_COPY)
    for path in [top, *top.rglob("*")]:
        os.chmod(path, 0o555 if path.is_dir() else 0o444)
    return top, site


def _runner(site):
    """How to run Python as a user who cannot write ``site``: ``(argv prefix, python)``, or skip."""
    paths = [str(site), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    if os.geteuid() != 0:
        return [], sys.executable, paths
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("as root the permissions do not bind, and setpriv is not there to run as nobody")
    prefix = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for python in dict.fromkeys([sys.executable, os.path.realpath(sys.executable), shutil.which(version),
                                 f"/usr/bin/{version}", f"/usr/local/bin/{version}"]):
        if python and subprocess.run([*prefix, python, "-c", "import numpy, numba, click"], capture_output=True,
                                     env={"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join(paths)}
                                     ).returncode == 0:
            return prefix, python, paths
    pytest.skip(f"no {version} that the user nobody can run with this environment's packages")


def _run(prefix, python, paths, args, cwd, **env):
    base = {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join(paths), "LC_ALL": "C.UTF-8"}
    return subprocess.run([*prefix, python, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**base, **env})


def test_a_read_only_package_without_a_writable_home_still_imports_its_kernels():
    # Numba found no cache directory ("cannot cache function 'exp32': no locator available") and
    # `import w2v.training.hogwild` failed; now the kernels cache in a private temporary folder
    top, site = _world_readable_copy()
    try:
        prefix, python, paths = _runner(site)
        probe = ("import os, w2v, w2v.training.hogwild, w2v.training.sampling, w2v.distributed.merge; "
                 "print(w2v.__file__); print(os.environ['NUMBA_CACHE_DIR'])")
        out = _run(prefix, python, paths, ["-c", probe], cwd=str(top), HOME=str(site / "no-home"))
        assert out.returncode == 0, out.stderr[-3000:]
        package, cache_dir = out.stdout.splitlines()
        assert package == str(site / "w2v" / "__init__.py")
        assert Path(cache_dir).name.startswith("w2v-numba-cache-")
        assert not Path(cache_dir).exists()   # removed at exit
    finally:
        _remove(top)


@pytest.mark.slow
def test_a_read_only_package_compiles_once_into_the_user_cache_and_says_so(small_corpus):
    # the first run says it compiles (once, on piped output too) and caches in $XDG_CACHE_HOME/w2v;
    # the second loads the cache and says nothing; --report-json keeps the compile time out of vocab_seconds
    top, site = _world_readable_copy()
    work = Path(tempfile.mkdtemp(prefix="w2v-user-"))
    try:
        prefix, python, paths = _runner(site)
        os.chmod(work, 0o777)
        shutil.copy(small_corpus, work / "corpus.txt")
        os.chmod(work / "corpus.txt", 0o444)
        args = ["-m", "w2v_cli.main", "train", "corpus.txt", "--epochs", "1", "--dim", "10", "--threads", "1"]
        runs = []
        for k in (1, 2):
            out = _run(prefix, python, paths, [*args, "-o", f"v{k}.bin", "--report-json", f"r{k}.json"],
                       cwd=str(work), HOME=str(work), XDG_CACHE_HOME=str(work / "cache"))
            assert out.returncode == 0, out.stderr[-3000:]
            runs.append(out.stderr)
        assert runs[0].count("compiling the training kernels (once) ...") == 1
        assert runs[0].count("compiled the training kernels in") == 1
        assert "compil" not in runs[1]
        assert list((work / "cache" / "w2v").rglob("*.nbi")) and list((work / "cache" / "w2v").rglob("*.nbc"))
        assert not [p for p in site.rglob("*") if p.suffix in (".nbi", ".nbc")]
        import json

        first = json.loads((work / "r1.json").read_text())
        assert first["kernel_load_seconds"] > first["vocab_seconds"], first   # the compile was the vocabulary's
    finally:
        _remove(top)
        _remove(work)


def _remove(top):
    for path in [top, *top.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            os.chmod(path, 0o755)
    shutil.rmtree(top, ignore_errors=True)
