"""Files w2v reads or replaces beside the model formats: word2vec.c vocabulary files (``fvocab``),
the modes of replaced outputs, the temporaries a killed write left, and words no file can hold."""
import os
import stat

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
