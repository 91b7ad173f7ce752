"""A model saved as one file (gensim's ``model.save(tmp.name)``): the form a path gets, the archive, its checks."""
import json
import os
import pickle
import struct
import tempfile
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner

import w2v
from w2v import KeyedVectors, Word2Vec
from w2v.errors import FormatError, OutputError
from w2v.formats import inspect, writes_single_file
from w2v.formats.archive import ALIGNMENT, ArchiveWriter
from w2v_cli.main import main

from .test_resume import CORRUPT_CASES, MODES, _corrupt_cases, assert_same_model

FAST = dict(dim=16, epochs=1, min_count=3, seed=3, threads=1)


@pytest.fixture(scope="module")
def trained(small_corpus):
    """One small trained model per mode."""
    return {name: Word2Vec(**{**FAST, **kw}).train(str(small_corpus)) for name, kw in MODES.items()}


def members(path):
    """``{name: bytes}`` of an archive, read by Python's own zipfile (CRC-32 checked)."""
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        return {i.filename: z.read(i) for i in z.infolist()}


def data_offsets(path):
    """``{name: offset of the member's data}`` from the local headers."""
    out = {}
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for info in z.infolist():
            f.seek(info.header_offset)
            head = f.read(30)
            name_length, extra_length = struct.unpack("<HH", head[26:30])
            out[info.filename] = info.header_offset + 30 + name_length + extra_length
    return out


def pack(folder, out, aligned=True):
    """The files of a model directory as one file: with w2v's writer, or with plain zipfile (unaligned)."""
    names = sorted(os.listdir(folder), key=lambda n: n == "meta.json")
    with open(out, "wb") as fh:
        if aligned:
            with ArchiveWriter(fh) as w:
                for n in names:
                    w.add_bytes(n, (folder / n).read_bytes())
        else:
            with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as z:
                for n in names:
                    z.writestr(n, (folder / n).read_bytes())
    return out


# --------------------------------------------------------------------------- gensim's tutorial
def test_save_onto_a_named_temporary_file_and_load_it(trained, tmp_path):
    # gensim's Word2Vec tutorial, as written
    model = trained["sg-ns"]
    with tempfile.NamedTemporaryFile(prefix="gensim-model-", delete=False, dir=tmp_path) as tmp:
        temporary_filepath = tmp.name
        model.save(temporary_filepath)
        new_model = Word2Vec.load(temporary_filepath)
    assert os.path.isfile(temporary_filepath)
    assert_same_model(model, new_model)
    assert new_model.run_state == model.run_state and np.array_equal(new_model.rng_states, model.rng_states)
    assert os.listdir(tmp_path) == [os.path.basename(temporary_filepath)]   # no temporary file left
    kv = w2v.load(temporary_filepath)
    assert kv.index_to_key == model.wv.index_to_key and np.array_equal(kv.vectors, model.wv.vectors)
    assert KeyedVectors.load(temporary_filepath).index_to_key == model.wv.index_to_key


@pytest.mark.parametrize("mode", list(MODES))
def test_a_single_file_round_trip_is_exact_and_holds_the_folders_bytes(trained, tmp_path, mode):
    m = trained[mode]
    m.save(str(tmp_path / "m.w2v"))
    m.save(str(tmp_path / "folder"))
    assert os.path.isfile(tmp_path / "m.w2v") and os.path.isdir(tmp_path / "folder")
    n = Word2Vec.load(str(tmp_path / "m.w2v"))
    assert_same_model(m, n)
    assert n.run_state == m.run_state and n.settings == m.settings
    for name in ("keep_threshold", "noise_threshold", "noise_alias", "hs_codes", "hs_points", "hs_lengths"):
        assert np.array_equal(getattr(n.tables, name), getattr(m.tables, name)), name
    # unzip gives the folder: the same files, byte for byte, meta.json written last
    inside = members(tmp_path / "m.w2v")
    assert inside == {name: (tmp_path / "folder" / name).read_bytes() for name in os.listdir(tmp_path / "folder")}
    assert list(inside)[-1] == "meta.json"
    # the same model saves to the same bytes
    m.save(str(tmp_path / "again.w2v"))
    assert (tmp_path / "again.w2v").read_bytes() == (tmp_path / "m.w2v").read_bytes()


def test_every_member_starts_aligned_and_the_vectors_are_mapped_in_place(trained, tmp_path):
    path = tmp_path / "m.w2v"
    trained["cbow-hs-ns"].save(str(path))
    offsets = data_offsets(path)
    assert offsets and all(at % ALIGNMENT == 0 for at in offsets.values()), offsets
    kv = w2v.load(str(path))
    assert isinstance(kv.vectors, np.memmap) and kv.vectors.flags.aligned and not kv.vectors.flags.writeable
    assert os.path.samefile(kv.vectors.filename, path)
    with open(path, "rb") as f:   # the array's data follow its .npy header inside the member
        f.seek(offsets["vectors.npy"])
        assert np.lib.format.read_magic(f) == (1, 0)
        np.lib.format.read_array_header_1_0(f)
        data_start = f.tell()
    assert kv.vectors.offset == data_start and data_start % ALIGNMENT == 0
    in_memory = w2v.load(str(path), mmap=False)
    assert not isinstance(in_memory.vectors, np.memmap)
    assert np.array_equal(in_memory.vectors, trained["cbow-hs-ns"].syn0)
    # numpy opens it as an .npz
    with np.load(path) as npz:
        assert np.array_equal(npz["syn1neg"], trained["cbow-hs-ns"].syn1neg)


# --------------------------------------------------------------------------- which form a path gets
def test_the_form_follows_the_path(trained, tmp_path):
    m = trained["sg-ns"]
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "dir").mkdir()
    cases = {"empty": True, "new.w2v": True, "NEW.W2V": True, "word2vec.model": False, "ck": False,
             "dir": False, "slash/": False}
    for name, single in cases.items():
        assert writes_single_file(str(tmp_path / name) + ("/" if name.endswith("/") else "")) is single, name
        m.save(os.path.join(str(tmp_path), name))
        target = tmp_path / name.rstrip("/")
        assert target.is_file() is single and target.is_dir() is not single, name
        assert Word2Vec.load(str(target)).vocab.words == m.vocab.words
    m.save(str(tmp_path / "empty"))            # a model saved as one file is replaced by one
    assert (tmp_path / "empty").is_file()
    assert writes_single_file(str(tmp_path / "new.w2v")) and not writes_single_file(str(tmp_path / "dir"))


def test_a_file_of_another_kind_is_never_replaced(trained, tmp_path):
    m = trained["sg-ns"]
    precious = tmp_path / "corpus.txt"
    precious.write_text("my corpus\n")
    gensim_pickle = tmp_path / "word2vec.model"
    gensim_pickle.write_bytes(pickle.dumps({"gensim": "model"}, protocol=4))
    m.save(str(tmp_path / "real.w2v"))
    (tmp_path / "link").symlink_to(tmp_path / "real.w2v")
    for target, pattern in ((precious, "not a w2v model"), (gensim_pickle, "not a w2v model"),
                            (tmp_path / "link", "not a regular file")):
        before = target.read_bytes()
        with pytest.raises(OutputError, match=pattern):
            m.save(str(target))
        assert target.read_bytes() == before
    assert (tmp_path / "link").is_symlink()
    # vectors never replace a full model, in one file as in a folder
    with pytest.raises(OutputError, match="full w2v model"):
        w2v.save(m.wv, str(tmp_path / "real.w2v"))
    assert Word2Vec.load(str(tmp_path / "real.w2v")).vocab.words == m.vocab.words
    w2v.save(m.wv, str(tmp_path / "vectors.w2v"))
    w2v.save(m.wv, str(tmp_path / "vectors.w2v"))          # vectors replace vectors
    assert w2v.load(str(tmp_path / "vectors.w2v")).index_to_key == m.wv.index_to_key


def test_a_save_stopped_midway_leaves_the_previous_file(trained, tmp_path, monkeypatch):
    path = tmp_path / "m.w2v"
    trained["sg-ns"].save(str(path))
    before = path.read_bytes()

    def interrupted(self, name, array):
        raise KeyboardInterrupt

    monkeypatch.setattr(ArchiveWriter, "add_array", interrupted)
    with pytest.raises(KeyboardInterrupt):
        trained["cbow-hs-ns"].save(str(path))
    monkeypatch.undo()
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.w2v"]


# --------------------------------------------------------------------------- what the loader checks
@pytest.mark.parametrize("case", CORRUPT_CASES)
def test_every_damaged_member_is_a_format_error_naming_the_file_and_member(trained, tmp_path, case):
    folder = tmp_path / "model"
    trained["cbow-hs-ns"].save(str(folder))
    name, damage = _corrupt_cases(folder)[case]
    damage()
    path = pack(folder, tmp_path / "m.w2v")
    with pytest.raises(FormatError) as err:
        Word2Vec.load(str(path))
    assert f"{path}[" in str(err.value) and name in str(err.value)   # the file and the member
    if name in ("vectors.npy", "vocab.tsv", "meta.json"):      # the vectors-only view checks them too
        with pytest.raises(FormatError, match=f"m.w2v\\[{name}\\]"):
            w2v.load(str(path))


def test_an_archive_of_other_tools_loads_when_stored_and_is_read_where_unaligned(trained, tmp_path):
    m = trained["cbow-hs-ns"]
    m.save(str(tmp_path / "model"))
    path = pack(tmp_path / "model", tmp_path / "zipped.w2v", aligned=False)
    assert any(at % 4 for at in data_offsets(path).values())    # plain zipfile aligns nothing
    assert_same_model(m, Word2Vec.load(str(path)))
    kv = w2v.load(str(path))
    assert np.array_equal(kv.vectors, m.syn0) and kv.vectors.flags.aligned


def _rewrite(path, fn):
    data = bytearray(path.read_bytes())
    fn(data)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("case", ["compressed", "twice", "folder", "truncated", "not-zip", "encrypted",
                                  "local-header", "wrong-offset", "overlap"])
def test_a_damaged_or_foreign_archive_is_a_format_error(trained, tmp_path, case):
    m = trained["sg-ns"]
    path = tmp_path / "m.w2v"
    m.save(str(path))
    inside = members(path)
    if case in ("compressed", "twice", "folder"):
        with zipfile.ZipFile(path, "w") as z:
            for name, data in inside.items():
                if case == "compressed":
                    z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
                else:
                    z.writestr(("sub/" if case == "folder" else "") + name, data)
            if case == "twice":
                with pytest.warns(UserWarning, match="Duplicate name"):
                    z.writestr("vocab.tsv", inside["vocab.tsv"])
    elif case == "truncated":
        _rewrite(path, lambda d: d.__delitem__(slice(len(d) // 2, None)))
    elif case == "not-zip":
        _rewrite(path, lambda d: d.__setitem__(slice(len(d) - 22, None), bytes(22)))   # no directory left
    elif case == "encrypted":   # the flag, in the directory's entry of the first member
        _rewrite(path, lambda d: d.__setitem__(d.index(b"PK\x01\x02") + 8, d[d.index(b"PK\x01\x02") + 8] | 1))
    elif case == "local-header":   # another method in the first local header
        _rewrite(path, lambda d: d.__setitem__(8, 8))
    elif case == "wrong-offset":   # the second member's entry points at the first one's header
        def f(d):
            second = d.index(b"PK\x01\x02", d.index(b"PK\x01\x02") + 4)
            d[second + 42:second + 46] = struct.pack("<L", 0)
        _rewrite(path, f)
    elif case == "overlap":   # the first member's sizes reach into the second one's data
        offsets = data_offsets(path)
        size = offsets["vocab.tsv"] - offsets["vectors.npy"] + 1

        def f(d):
            first = d.index(b"PK\x01\x02")
            d[first + 20:first + 28] = struct.pack("<LL", size, size)
        _rewrite(path, f)
    pattern = {"compressed": r"\[vectors.npy\]: compressed", "twice": r"\[vocab.tsv\]: the archive holds this "
               "member twice", "folder": "no folders", "truncated": "truncated or corrupt|truncated",
               "not-zip": "not a readable zip archive", "encrypted": "encrypted",
               "local-header": "local header disagrees", "wrong-offset": "local header disagrees",
               "overlap": "the data of two members overlap"}[case]
    for load in (Word2Vec.load, w2v.load, inspect):
        with pytest.raises(FormatError, match=pattern) as err:
            load(str(path))
        assert str(path) in str(err.value)


def test_a_gensim_pickle_gets_the_same_help_from_every_loader(tmp_path):
    path = tmp_path / "word2vec.model"
    path.write_bytes(pickle.dumps({"a gensim": "model"}, protocol=4))
    with pytest.raises(FormatError, match="pickle") as kv_err:
        KeyedVectors.load(str(path))
    assert "save_word2vec_format(fname, binary=True)" in str(kv_err.value)
    with pytest.raises(FormatError, match="pickle") as model_err:
        Word2Vec.load(str(path))
    assert "never unpickles" in str(model_err.value) and "model.wv.save_word2vec_format(fname, binary=True)" \
        in str(model_err.value)
    for load in (w2v.load, inspect):
        with pytest.raises(FormatError, match="never unpickles"):
            load(str(path))


def test_word2vec_load_of_a_vectors_file_says_what_it_is(tmp_path):
    kv = KeyedVectors(["a", "b"], np.ones((2, 3), np.float32))
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    with pytest.raises(FormatError, match="not a w2v model"):
        Word2Vec.load(str(tmp_path / "v.bin"))


# --------------------------------------------------------------------------- checkpoints and the CLI
def test_checkpoints_to_one_file_resume(small_corpus, tmp_path):
    kw = dict(FAST, epochs=2)
    ck = tmp_path / "ck.w2v"
    full = Word2Vec(**kw).train(str(small_corpus))
    first = Word2Vec(**kw)
    first.train(str(small_corpus), on_epoch_end=lambda e: e == 0 and first.save(str(ck)))
    resumed = Word2Vec.load(str(ck))
    assert ck.is_file() and resumed.run_state["epochs_done"] == 1
    resumed.train(str(small_corpus))
    assert_same_model(full, resumed)
    Word2Vec(**kw).train(str(small_corpus), checkpoint=str(tmp_path / "within.w2v"), checkpoint_words=30000)
    assert (tmp_path / "within.w2v").is_file()
    assert Word2Vec.load(str(tmp_path / "within.w2v")).run_state["epochs_done"] == 2


def test_the_cli_reads_and_writes_one_file(small_corpus, tmp_path):
    run = CliRunner().invoke
    path = tmp_path / "m.w2v"
    args = ["train", str(small_corpus), "--dim", "8", "--epochs", "1", "--threads", "1", "-q",
            "-o", str(tmp_path / "v.bin"), "--save-model", str(path)]
    for _ in range(2):   # the second run replaces the model it wrote
        res = run(main, args)
        assert res.exit_code == 0, res.output
    assert path.is_file()
    res = run(main, ["info", str(path)])
    assert res.exit_code == 0, res.output
    assert "format:      native (one file)" in res.output and "run:         1 of 1 epochs done" in res.output
    res = run(main, ["train", "--resume", str(path), "--epochs", "2", "-q", "-o", str(tmp_path / "w.bin")])
    assert res.exit_code == 0, res.output
    res = run(main, ["similar", str(path), "the", "-n", "3"])
    assert res.exit_code == 0 and len(res.stdout.strip().splitlines()) == 3, res.output
    (tmp_path / "notes.txt").write_text("keep me")
    res = run(main, args[:-1] + [str(tmp_path / "notes.txt")])
    assert res.exit_code == 1 and "--save-model" in res.output and "not a w2v model" in res.output
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_inspect_describes_both_forms(trained, tmp_path):
    m = trained["sg-ns"]
    m.save(str(tmp_path / "m.w2v"))
    m.save(str(tmp_path / "m"))
    one, folder = inspect(str(tmp_path / "m.w2v")), inspect(str(tmp_path / "m"))
    assert one["single_file"] and not folder["single_file"]
    assert one["full_model"] == folder["full_model"] == json.loads((tmp_path / "m" / "model.json").read_text())
    assert {k: v for k, v in one.items() if k not in ("path", "single_file")} == \
        {k: v for k, v in folder.items() if k not in ("path", "single_file")}
