"""What a failed write says: a full disk, a full temporary folder, a folder that takes no file."""
import errno
import os
import tempfile

import numpy as np
import pytest

from w2v.util.atomic import atomic_write, creation_error, os_error_text
from w2v.text.encoded import IdStream
from w2v.errors import CorpusError, OutputError


def test_a_short_write_is_worded_as_the_full_disk_it_is(tmp_path):
    assert os_error_text(OSError("1233800 requested and 254944 written")) == \
        "No space left on device (1233800 requested and 254944 written)"
    assert os_error_text(OSError(errno.ENOSPC, "No space left on device")) == "No space left on device"
    assert os_error_text(OSError("something else")) == "something else"
    target = tmp_path / "v.bin"
    target.write_bytes(b"old")
    with pytest.raises(OutputError, match=r"^cannot write .*v.bin: No space left on device \(1233800 requested "
                                          r"and 254944 written\)$"):
        with atomic_write(str(target)) as fh:
            fh.write(b"new")
            raise OSError("1233800 requested and 254944 written")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["v.bin"]


def test_a_model_cut_short_by_a_full_disk_says_so(tmp_path, monkeypatch):
    import w2v.formats.members
    from w2v.vectors.keyed import KeyedVectors

    def short_write(path, array):   # what numpy's tofile raises on a full disk: no errno
        raise OSError("1233800 requested and 254944 written")

    monkeypatch.setattr(w2v.formats.members, "write_array", short_write)
    kv = KeyedVectors(["a", "b"], np.ones((2, 4), np.float32))
    (tmp_path / "full").mkdir()
    with pytest.raises(OutputError, match=r"cannot write .*full/m: No space left on device \(1233800 requested"):
        kv.save(str(tmp_path / "full" / "m"))   # a native folder, as --save-model writes
    assert os.listdir(tmp_path / "full") == []


def test_a_model_file_cut_short_by_a_full_disk_says_so(tmp_path, monkeypatch):
    from w2v.formats.archive import ArchiveWriter
    from w2v.vectors.keyed import KeyedVectors

    def short_write(self, name, array):   # what numpy's tofile raises on a full disk: no errno
        raise OSError("1233800 requested and 254944 written")

    monkeypatch.setattr(ArchiveWriter, "add_array", short_write)
    kv = KeyedVectors(["a", "b"], np.ones((2, 4), np.float32))
    (tmp_path / "full").mkdir()
    with pytest.raises(OutputError, match=r"cannot write .*full/m.w2v: No space left on device \(1233800 requested"):
        kv.save(str(tmp_path / "full" / "m.w2v"))   # one file, as --save-model m.w2v writes
    assert os.listdir(tmp_path / "full") == []


def test_creation_error_creates_and_removes_a_file(tmp_path):
    assert creation_error(str(tmp_path)) is None and os.listdir(tmp_path) == []
    assert creation_error(str(tmp_path / "missing")) == "No such file or directory"
    if os.path.isdir("/proc/self"):
        assert creation_error("/proc") is not None   # writable to root by its permission bits


class _FullDisk:
    """A temporary file on a full disk: every write fails."""

    def __init__(self, file):
        self.file = file

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self.file, name)


def test_a_full_temporary_folder_names_the_folder(tmp_path, monkeypatch):
    real = tempfile.TemporaryFile
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *a, **k: _FullDisk(real(*a, **k)))
    stream = IdStream(memory_budget=8, tmpdir=str(tmp_path))
    stream.append(np.arange(2, dtype=np.int32))   # in memory
    with pytest.raises(CorpusError, match=f"cannot keep the encoded corpus in a temporary file in {tmp_path}: "
                                          "No space left on device; free space there, point TMPDIR at a larger "
                                          r"folder, or raise the memory budget \(--memory-budget\)"):
        stream.append(np.arange(4, dtype=np.int32))   # spills
    stream.close()
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    with pytest.raises(CorpusError, match=f"temporary file in {tmp_path}: Read-only file system"):
        IdStream(memory_budget=0, tmpdir=str(tmp_path)).append(np.arange(4, dtype=np.int32))


def test_flush_behind_writes_the_whole_file_syncing_while_it_is_written(tmp_path, monkeypatch):
    import threading
    import time

    import w2v.util.atomic
    synced = []
    real = os.fdatasync
    monkeypatch.setattr(w2v.util.atomic, "FLUSH_BEHIND_SECONDS", 0.01)
    monkeypatch.setattr(os, "fdatasync", lambda fd: (synced.append(fd), real(fd)))
    target = tmp_path / "big.txt"
    with atomic_write(str(target), flush_behind=True) as fh:
        for i in range(20):
            fh.write(bytes([65 + i]) * 100_000)
            fh.flush()
            time.sleep(0.005)
    assert target.read_bytes() == b"".join(bytes([65 + i]) * 100_000 for i in range(20))
    assert synced, "nothing was synced while the file was written"
    assert not [t for t in threading.enumerate() if t.name == "w2v-flush-behind"]


def test_flush_behind_leaves_the_old_file_and_no_thread_when_the_writer_fails(tmp_path):
    import threading
    target = tmp_path / "v.txt"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(str(target), flush_behind=True) as fh:
            fh.write(b"new" * 1000)
            raise KeyboardInterrupt
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["v.txt"]
    assert not [t for t in threading.enumerate() if t.name == "w2v-flush-behind"]
