"""Files w2v reads or replaces beside the model formats: word2vec.c vocabulary files (``fvocab``),
the modes of replaced outputs, the temporaries a killed write left, and words no file can hold."""
import os
import stat
import time

import pytest
from click.testing import CliRunner

from w2v import KeyedVectors, load
from w2v.errors import FormatError
from w2v.formats import read_vocab_counts
from w2v.vectors.keyed import save_native, save_word2vec_format
from w2v_cli.main import main

from ..support.formats_cases import make_kv


@pytest.mark.parametrize("count", ["18446744073709551616", "9" * 5000, "9223372036854775808"])
def test_a_vocab_count_beyond_int64_is_a_format_error_naming_the_file_and_line(tmp_path, count):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text(f"a 3\nb {count}\n")
    with pytest.raises(FormatError, match=rf"vocab.txt: line 2: count {count[:40]}.* is too large"):
        read_vocab_counts(vocab)
    kv = make_kv(2, 4)
    kv.save_word2vec_format(tmp_path / "v.txt")
    with pytest.raises(FormatError, match="line 2: count"):
        KeyedVectors.load_word2vec_format(tmp_path / "v.txt", fvocab=vocab)


def test_the_largest_int64_count_and_leading_zeros_are_read(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text(f"a 9223372036854775807\nb {'0' * 5000}7\n")
    assert read_vocab_counts(vocab) == {"a": 9223372036854775807, "b": 7}


# --------------------------------------------------------------------------- modes of replaced outputs
def modes(path):
    """``{name: mode}`` of a folder (``"."``) and its files, or the mode of a file."""
    if not path.is_dir():
        return stat.S_IMODE(os.stat(path).st_mode)
    return {".": stat.S_IMODE(os.stat(path).st_mode),
            **{p.name: stat.S_IMODE(os.stat(p).st_mode) for p in path.iterdir()}}


@pytest.mark.parametrize("name", ["p.bin", "p.txt", "p.txt.gz", "p.w2v"])
def test_convert_over_a_private_file_keeps_its_mode(tmp_path, name):
    make_kv(6, 4).save_word2vec_format(tmp_path / "vec.txt")
    target = tmp_path / name
    res = CliRunner().invoke(main, ["convert", str(tmp_path / "vec.txt"), str(target)])
    assert res.exit_code == 0, res.output
    os.chmod(target, 0o600)
    old = os.umask(0o022)
    try:
        res = CliRunner().invoke(main, ["convert", str(tmp_path / "vec.txt"), str(target)])
    finally:
        os.umask(old)
    assert res.exit_code == 0, res.output
    assert modes(target) == 0o600


def test_a_new_file_follows_the_umask(tmp_path):
    old = os.umask(0o077)
    try:
        save_word2vec_format(make_kv(), tmp_path / "new.bin")
        save_native(make_kv(), tmp_path / "new")
    finally:
        os.umask(old)
    assert modes(tmp_path / "new.bin") == 0o600
    assert set(modes(tmp_path / "new").values()) == {0o700, 0o600}


def test_a_private_model_folder_and_its_files_keep_their_modes(tmp_path):
    save_native(make_kv(), tmp_path / "m")
    os.chmod(tmp_path / "m" / "vectors.npy", 0o640)
    for name in ("meta.json", "vocab.tsv"):
        os.chmod(tmp_path / "m" / name, 0o600)
    os.chmod(tmp_path / "m", 0o700)
    before = modes(tmp_path / "m")
    old = os.umask(0o022)
    try:
        save_native(make_kv(7, 4), tmp_path / "m")
    finally:
        os.umask(old)
    assert modes(tmp_path / "m") == before
    assert len(load(tmp_path / "m")) == 7


def test_a_private_phrase_model_folder_keeps_its_modes(tmp_path):
    from w2v.phrases.model import Phrases   # the phrase models, for this test only

    model = Phrases([["new", "york", "city"]] * 4, min_count=1, threshold=0.1)
    model.save(tmp_path / "p")
    for p in (tmp_path / "p").iterdir():
        os.chmod(p, 0o600)
    os.chmod(tmp_path / "p", 0o700)
    before = modes(tmp_path / "p")
    old = os.umask(0o022)
    try:
        model.save(tmp_path / "p")
    finally:
        os.umask(old)
    assert modes(tmp_path / "p") == before


# --------------------------------------------------------------------------- what killed writes left
def aged(path, seconds=60):
    """Set the modification time of ``path`` (and of what it holds) ``seconds`` back."""
    when = time.time() - seconds
    for p in [path, *(path.iterdir() if path.is_dir() else [])]:
        os.utime(p, (when, when), follow_symlinks=False)
    return path


def partial_file(folder, name):
    (folder / name).write_bytes(b"half a vector file")
    return aged(folder / name)


def partial_folder(folder, name, meta=False):
    (folder / name).mkdir()
    (folder / name / "vectors.npy").write_bytes(b"\x93NUMPY half")
    if meta:
        (folder / name / "meta.json").write_text('{"format": "w2v-phrases"}')
    return aged(folder / name)


def test_convert_removes_a_stale_partial_temporary_and_says_so(tmp_path):
    make_kv(6, 4).save_word2vec_format(tmp_path / "vec.txt")
    stale = partial_file(tmp_path, ".vL.bin.k2j4m9x_.tmp")
    res = CliRunner().invoke(main, ["convert", str(tmp_path / "vec.txt"), str(tmp_path / "vL.bin")])
    assert res.exit_code == 0, res.output
    assert not stale.exists()
    lines = [ln for ln in res.output.splitlines() if ln.startswith("warning:")]
    assert lines == [f"warning: removed 1 partial temporary that an interrupted write of {tmp_path / 'vL.bin'} "
                     "left: .vL.bin.k2j4m9x_.tmp"]


def test_only_stale_temporaries_of_the_same_name_are_removed(tmp_path, caplog):
    stale = partial_file(tmp_path, ".v.bin.aaaa1111.tmp")
    fresh = tmp_path / ".v.bin.bbbb2222.tmp"      # a write under way: it changed just now
    fresh.write_bytes(b"being written")
    keep = [partial_file(tmp_path, name) for name in
            (".v.bin.bak.cccc3333.tmp", ".w.bin.dddd4444.tmp", ".v.bin.eeee5555.old", "v.bin.ffff6666.tmp")]
    folder = partial_folder(tmp_path, ".v.bin.gggg7777.tmp")        # an atomic write leaves files only
    (tmp_path / ".v.bin.hhhh8888.tmp").symlink_to(tmp_path / "elsewhere")
    save_word2vec_format(make_kv(), tmp_path / "v.bin")
    assert not stale.exists()
    assert fresh.exists() and folder.exists() and all(p.exists() for p in keep)
    assert os.path.lexists(tmp_path / ".v.bin.hhhh8888.tmp")
    assert [r.getMessage() for r in caplog.records if "partial" in r.getMessage()] == [
        f"removed 1 partial temporary that an interrupted write of {tmp_path / 'v.bin'} left: .v.bin.aaaa1111.tmp"]


def test_a_checkpoint_save_removes_the_partial_copy_a_killed_save_left(tmp_path):
    from w2v import Word2Vec   # a full model, for this test only

    corpus = tmp_path / "c.txt"
    corpus.write_text("the quick brown fox jumps over the lazy dog\n" * 20)
    model = Word2Vec(dim=8, min_count=1, epochs=1, threads=1, seed=1)
    model.train(str(corpus))
    model.save(str(tmp_path / "ck"))
    partial = partial_folder(tmp_path, ".ck.q8w7e6r5.tmp")
    model.save(str(tmp_path / "ck"))
    assert not partial.exists()
    assert sorted(os.listdir(tmp_path)) == ["c.txt", "ck"]
    assert len(Word2Vec.load(str(tmp_path / "ck")).wv) == len(model.wv)


def test_a_phrase_save_keeps_a_complete_copy_and_removes_a_partial_one(tmp_path):
    from w2v.phrases.model import Phrases   # the phrase models, for this test only

    model = Phrases([["new", "york", "city"]] * 4, min_count=1, threshold=0.1)
    partial = partial_folder(tmp_path, ".p.a1b2c3d4.tmp")
    complete = partial_folder(tmp_path, ".p.e5f6g7h8.tmp", meta=True)
    model.save(tmp_path / "p")
    assert not partial.exists() and complete.exists()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_given_as_a_vocab_file_is_refused_at_once(tmp_path, device):
    (tmp_path / "vocab.txt").symlink_to(device)
    with pytest.raises(FormatError, match="vocab.txt: a device, not a vocabulary file"):
        read_vocab_counts(tmp_path / "vocab.txt")
