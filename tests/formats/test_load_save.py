"""Loading and saving in any format: dispatch, limits, failed and atomic writes, conversion in place."""
import errno
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

import w2v.formats as formats
from w2v.util.atomic import atomic_write, atomic_write_text
from w2v.errors import FormatError, OutputError, ParameterError
from w2v.formats import inspect
from w2v.vectors.keyed import KeyedVectors, load, load_word2vec_format, save, save_native, save_word2vec_format

from ..support.formats_cases import expect_format_error, make_kv, raw_binary, run_cli, same


# --------------------------------------------------------------------------- round trips through load and save
def test_limit(tmp_path):
    kv = make_kv(5, 4)
    for binary in (True, False):
        p = tmp_path / f"v{binary}.bin"
        save_word2vec_format(kv, p, binary=binary)
        back = load(p, limit=2)
        assert back.index_to_key == kv.index_to_key[:2]
        assert np.array_equal(back.vectors, kv.vectors[:2])
        assert len(load(p, limit=100)) == 5
    with pytest.raises(ParameterError):
        load(p, limit=0)
    save_native(kv, tmp_path / "nat")
    back = load(tmp_path / "nat", limit=3)
    assert back.index_to_key == kv.index_to_key[:3] and list(back.counts) == list(kv.counts[:3])


def test_unicode_words_every_format(tmp_path):
    kv = make_kv(5, 3, words=["日本語", "naïve", "😀", "ß", "z"])
    for name, fmt in [("u.bin", "bin"), ("u.txt", "text"), ("u.bin.xz", "bin"), ("u.txt.gz", "text"),
                      ("nat", "native")]:
        save(kv, tmp_path / name, format=fmt)
        same(kv, load(tmp_path / name))


def test_save_dispatch_by_suffix(tmp_path):
    kv = make_kv()
    save(kv, tmp_path / "a.bin")
    save(kv, tmp_path / "a.vec")
    save(kv, tmp_path / "a.txt.bz2")
    save(kv, tmp_path / "nat")
    assert load(tmp_path / "a.bin").source_format == "word2vec-binary"
    assert load(tmp_path / "a.vec").source_format == "word2vec-text"
    assert load(tmp_path / "a.txt.bz2").source_format == "word2vec-text"
    assert load(tmp_path / "nat").source_format == "native"
    with pytest.raises(ParameterError):
        save(kv, tmp_path / "x", format="hdf5")
    assert inspect(tmp_path / "a.txt.bz2")["compression"] == "bz2"
    assert inspect(tmp_path / "nat")["settings"]["alpha"] == 0.025


def test_torch_embedding(tmp_path):
    torch = pytest.importorskip("torch")
    kv = make_kv(5, 4)
    emb = torch.nn.Embedding.from_pretrained(torch.from_numpy(kv.vectors))
    ids = torch.from_numpy(kv.encode(["the", "a"]))
    assert np.array_equal(emb(ids).numpy(), kv[["the", "a"]])


# --------------------------------------------------------------------------- writing errors
def test_unwritable_path_raises_output_error(tmp_path):
    kv = make_kv()
    bad = tmp_path / "no" / "such" / "dir" / "v.bin"
    for fn in (lambda: save_word2vec_format(kv, bad), lambda: save_native(kv, bad)):
        with pytest.raises(OutputError, match="v.bin"):
            fn()
    with pytest.raises(OutputError):
        save_word2vec_format(kv, tmp_path)  # a directory


def test_failed_write_leaves_old_file_and_no_temp(tmp_path, monkeypatch):
    kv = make_kv()
    path = tmp_path / "v.bin"
    save_word2vec_format(kv, path)
    before = path.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OutputError, match="v.bin"):
        save_word2vec_format(make_kv(seed=5), path)
    with pytest.raises(OutputError):
        save_native(make_kv(seed=5), tmp_path / "nat")
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["v.bin"]


def test_missing_and_directory_paths(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nope.bin")
    (tmp_path / "d").mkdir()
    expect_format_error(tmp_path / "d", match="meta.json")
    with pytest.raises(FormatError):
        load_word2vec_format(tmp_path / "d")


# --------------------------------------------------------------------------- in-place conversion
def _one_line_error(res, *fragments):
    assert res.exit_code == 1, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1 and out.startswith("Error:"), out
    for frag in fragments:
        assert frag in out, out


@pytest.mark.parametrize("name,to", [("v.bin", None), ("v.txt", None), ("v.bin", "text"), ("nat", None)])
def test_convert_refuses_to_write_over_its_input(tmp_path, name, to):
    # `w2v convert a.bin a.bin --to text` replaced the binary file by text; --limit truncated it
    kv = make_kv(6, 3)
    path = tmp_path / name
    save(kv, path)
    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    link = tmp_path / "link"
    link.symlink_to(path)
    for out in (path, str(path) + os.sep if path.is_dir() else path, link, tmp_path / "." / name):
        args = ["convert", path, out, "--limit", "2"] + (["--to", to] if to else [])
        _one_line_error(run_cli(args), "is the input")
    if not path.is_dir():
        hard = tmp_path / "hard"
        os.link(path, hard)
        _one_line_error(run_cli(["convert", path, hard]), "is the input")
        os.unlink(hard)
    os.unlink(link)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot
    same(kv, load(path))
    res = run_cli(["convert", path, tmp_path / "copy.bin"])        # another path is fine
    assert res.exit_code == 0, res.output


# --------------------------------------------------------------------------- more readers and writers
@pytest.mark.parametrize("limit", [0, -1, True, 1.5, "2"])
def test_limit_must_be_a_positive_integer(tmp_path, limit):
    # True is an int to Python: it read one vector instead of being refused
    save_word2vec_format(make_kv(), tmp_path / "v.bin")
    save_native(make_kv(), tmp_path / "nat")
    for path in (tmp_path / "v.bin", tmp_path / "nat"):
        with pytest.raises(ParameterError, match="limit"):
            load(path, limit=limit)
    with pytest.raises(ParameterError, match="limit"):
        load_word2vec_format(tmp_path / "v.bin", limit=limit)
    assert len(load(tmp_path / "v.bin", limit=np.int64(2))) == 2    # any Integral is fine


@pytest.mark.parametrize("fmt,source_format", [("bin", "word2vec-binary"), ("binary", "word2vec-binary"),
                                               ("text", "word2vec-text"), ("txt", "word2vec-text"),
                                               ("vec", "word2vec-text"), ("native", "native")])
def test_save_format_names(tmp_path, fmt, source_format):
    # the format given overrides the suffix
    kv = make_kv()
    save(kv, tmp_path / "out", format=fmt)
    back = load(tmp_path / "out")
    same(kv, back)
    assert back.source_format == source_format


@pytest.mark.parametrize("name", ["nat", "v.bin", "v.txt"])
def test_an_empty_model_round_trips(tmp_path, name):
    # numpy cannot memory-map no bytes: an empty native model is read instead
    kv = KeyedVectors([], np.empty((0, 3), np.float32))
    save(kv, tmp_path / name)
    for mmap in (True, False):
        back = load(tmp_path / name, mmap=mmap)
        assert len(back) == 0 and back.vectors.shape == (0, 3)


@pytest.mark.parametrize("save, mode", [(save_native, 0o750), (save_word2vec_format, 0o640)])
def test_a_saved_model_gets_the_mode_mkdir_or_open_would_give(tmp_path, save, mode):
    # made by mkdtemp (0700) or mkstemp (0600): once renamed in, a native directory gets
    # 0777 and a vectors file 0666, less the umask
    old = os.umask(0o027)
    try:
        save(make_kv(), tmp_path / "m")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "m").st_mode) == mode


# --------------------------------------------------------------------------- atomic writes
@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path, exc):
    path = tmp_path / "v.bin"
    path.write_bytes(b"old")
    with pytest.raises(exc):
        with atomic_write(path) as fh:
            fh.write(b"new, half written")
            # the data go to a hidden file next to the target (same file system: the rename is atomic)
            (tmp,) = set(os.listdir(tmp_path)) - {"v.bin"}
            assert tmp.startswith(".v.bin.") and tmp.endswith(".tmp")
            raise exc
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["v.bin"]


def _record_syncs(monkeypatch):
    """Record every fsync (the path of the descriptor, and a file's size then) and rename."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd to name the descriptors fsynced")
    events = []
    real = {name: getattr(os, name) for name in ("fsync", "rename", "replace")}

    def fsync(fd):
        st = os.fstat(fd)
        size = st.st_size if stat.S_ISREG(st.st_mode) else None
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"), size))
        return real["fsync"](fd)

    def renamer(name):
        def rename(src, dst, **kw):
            events.append((name, os.fspath(src), os.fspath(dst)))
            return real[name](src, dst, **kw)
        return rename

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", renamer("rename"))
    monkeypatch.setattr(os, "replace", renamer("replace"))
    return events


def _fsynced(events, path, after=-1, before=None):
    """Index of the first fsync of ``path`` between the events ``after`` and ``before``, and the size then."""
    for i, event in enumerate(events[:before]):
        if i > after and event[0] == "fsync" and event[1] == str(path):
            return i, event[2]
    raise AssertionError(f"{path} was not fsynced between events {after} and {before}: {events}")


def test_a_native_save_is_on_disk_before_and_after_its_rename(tmp_path, monkeypatch):
    # each file whole (flushed, then fsynced), then the temporary directory (its entries), all
    # before the rename into place; the parent directory (the rename) after it. A crash after
    # the save returned must not find a model with empty or missing files, or the old one
    tmp_path = Path(os.path.realpath(tmp_path))
    path = tmp_path / "m"
    save_native(make_kv(seed=1), path)                  # one to replace
    fds = len(os.listdir("/proc/self/fd"))
    events = _record_syncs(monkeypatch)
    save_native(make_kv(50, 8, seed=2), path)
    monkeypatch.undo()
    (into,) = [i for i, e in enumerate(events) if e[0] != "fsync" and e[2] == str(path)]
    tmp = events[into][1]
    synced_dir, _ = _fsynced(events, tmp, before=into)
    for name in ("vectors.npy", "vocab.tsv", "meta.json"):
        _, size = _fsynced(events, os.path.join(tmp, name), before=synced_dir)
        assert size == os.path.getsize(path / name), name
    _fsynced(events, tmp_path, after=into)
    assert len(os.listdir("/proc/self/fd")) == fds        # the directories' descriptors are closed


def test_an_atomic_write_is_on_disk_before_and_after_its_rename(tmp_path, monkeypatch):
    # the temporary file whole before it is renamed over the path, the directory after (a new
    # file was not there after a crash, though the save had returned); write_array (the arrays
    # of a full model) fsyncs its whole file too
    tmp_path = Path(os.path.realpath(tmp_path))
    events = _record_syncs(monkeypatch)
    for name in ("v.bin", "v.txt.gz"):
        save(make_kv(50, 8), tmp_path / name)
        (into,) = [i for i, e in enumerate(events) if e[0] != "fsync" and e[2] == str(tmp_path / name)]
        _, size = _fsynced(events, events[into][1], before=into)
        assert size == os.path.getsize(tmp_path / name)
        _fsynced(events, tmp_path, after=into)
    formats.write_array(str(tmp_path / "a.npy"), np.arange(100.0))
    _, size = _fsynced(events, tmp_path / "a.npy")
    monkeypatch.undo()
    assert size == os.path.getsize(tmp_path / "a.npy")
    assert np.array_equal(np.load(tmp_path / "a.npy"), np.arange(100.0))


def test_a_directory_that_cannot_be_fsynced_does_not_fail_a_save(tmp_path, monkeypatch):
    # some file systems refuse to fsync a directory (EINVAL), and a parent this process may not
    # read (chmod 333) cannot be opened for it: the files are still fsynced and the save goes on
    real_fsync, real_open = os.fsync, os.open

    def fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_fsync(fd)

    def open_but_the_parent(p, flags, *args, **kw):
        if os.path.realpath(p) == os.path.realpath(tmp_path / "open"):
            raise PermissionError(errno.EACCES, "Permission denied", p)
        return real_open(p, flags, *args, **kw)

    for name, fake in (("fsync", fsync), ("open", open_but_the_parent)):
        parent = tmp_path / name
        parent.mkdir()
        monkeypatch.setattr(os, name, fake)
        for seed in (1, 2):                              # a new file or model, then one replaced
            save_native(make_kv(seed=seed), parent / "m")
            save_word2vec_format(make_kv(seed=seed), parent / "v.bin")
            same(make_kv(seed=seed), load(parent / "m"))
            same(make_kv(seed=seed), load(parent / "v.bin"))
        monkeypatch.undo()
        assert sorted(os.listdir(parent)) == ["m", "v.bin"]


def test_atomic_write_text_encodes(tmp_path):
    atomic_write_text(tmp_path / "a.txt", "naïve 日本語\n")
    assert (tmp_path / "a.txt").read_bytes() == "naïve 日本語\n".encode("utf-8")
    atomic_write_text(tmp_path / "b.txt", "naïve", encoding="utf-16")
    assert (tmp_path / "b.txt").read_bytes() == "naïve".encode("utf-16")


def _open_fifo(path):
    """A named pipe at ``path`` with a read end (returned) and a write end kept open (so reads wait)."""
    os.mkfifo(path)
    r = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    w = os.open(path, os.O_WRONLY)
    os.set_blocking(r, True)
    return r, w


def test_a_named_pipe_is_written_through_not_replaced(tmp_path):
    # renaming over a pipe (or a device) would replace it with a plain file that nobody reads
    kv = make_kv()
    fifo = tmp_path / "pipe.bin"
    r, w = _open_fifo(fifo)
    try:
        save_word2vec_format(kv, fifo)            # small enough for the pipe's buffer
        os.close(w)
        data = b""
        while chunk := os.read(r, 1 << 16):
            data += chunk
    finally:
        os.close(r)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert data == raw_binary(kv.index_to_key, kv.vectors)
    assert os.listdir(tmp_path) == ["pipe.bin"]


def test_a_pipe_closed_by_its_reader_is_an_output_error(tmp_path):
    # `w2v convert ... -o pipe` with a reader that quits (head): a typed error, not a traceback
    kv = make_kv(2000, 50)                        # 400 KB: more than a pipe holds
    fifo = tmp_path / "pipe.bin"
    r, w = _open_fifo(fifo)

    def read_a_little_and_quit():
        os.read(r, 1)
        os.close(r)

    reader = threading.Thread(target=read_a_little_and_quit, daemon=True)
    reader.start()
    try:
        with pytest.raises(OutputError, match="pipe.bin"):
            save_word2vec_format(kv, fifo)
    finally:
        reader.join(10)
        os.close(w)
