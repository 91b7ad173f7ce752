"""The inputs of a corpus: which files it names (links, loops, files named twice) and whether each is text."""
import gzip
import io
import os
import sys
import warnings

import numpy as np
import pytest

from w2v.text.scanning import resolve_inputs, scan_corpus
from w2v.errors import CorpusError, CorpusWarning
from w2v.text.inputs import MIN_SHARE_SAMPLE, TEXT_SAMPLE, check_text_files, not_text_reason

READERS = [("whitespace", 1), ("whitespace", 2), ("simple", 1), ("char", 1)]   # the byte scan, the text scan


def scan(paths, reader, **kw):
    tokenizer, threads = reader
    sc = scan_corpus(paths, tokenizer=tokenizer, threads=threads, **kw)
    sc.stream.close()
    return sc


def executable_bytes():
    """The start of a real executable (NUL bytes among the opcodes and the ELF header)."""
    with open(sys.executable, "rb") as f:
        return f.read(200_000)


# --------------------------------------------------------------------------- binary input
@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", ["executable", "random-no-nul", "gzip-of-executable", "utf-16"])
def test_input_that_is_not_text_is_refused_unless_allowed(tmp_path, reader, kind):
    rng = np.random.default_rng(0)
    data = {
        "executable": executable_bytes(),
        "random-no-nul": rng.integers(1, 256, 50_000, dtype=np.uint8).tobytes(),   # the share rule alone
        "gzip-of-executable": gzip.compress(executable_bytes()),                   # checked decompressed
        "utf-16": ("the cat sat on the mat\n" * 100).encode("utf-16"),
    }[kind]
    p = tmp_path / "input.bin"
    p.write_bytes(data)
    with pytest.raises(CorpusError, match=f"corpus {p} does not look like text: .*--allow-binary"):
        scan([str(p)], reader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        assert scan([str(p)], reader, allow_binary=True).n_tokens > 0


@pytest.mark.parametrize("reader", READERS)
def test_text_in_any_language_passes_with_a_few_bad_bytes_too(tmp_path, reader):
    texts = {
        "en": "The quick brown fox jumps over the lazy dog.\tTabs, CR\r\n and form\x0cfeeds too.\n",
        "ru": "Съешь же ещё этих мягких французских булок, да выпей чаю.\n",
        "zh": "我能吞下玻璃而不伤身体。天地玄黄，宇宙洪荒。\n",
        "ar": "أنا قادر على أكل الزجاج و هذا لا يؤلمني.\n",
        "hi": "मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती.\n",
        "emoji": "good 😀 morning 🌍 world 🎉\n",
    }
    for name, text in texts.items():
        p = tmp_path / f"{name}.txt"
        p.write_text(text * 400, encoding="utf-8")
        assert scan([str(p)], reader).n_tokens > 0
    # a few bad bytes, and Latin-1 prose (about 20% of its characters undecodable as UTF-8): read, with a warning
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"the cat sat on caf\xe9 mat \xff\xfe the cat sat\n" * 400)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Ärger über Öl, Straße, für Mädchen grüßen Bäume schön.\n".encode("latin-1") * 400)
    for p in (bad, latin1):
        with pytest.warns(CorpusWarning, match="not UTF-8"):
            assert scan([str(p)], reader).n_tokens > 0


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("chunk", [7, 1000, 1 << 18])
def test_the_text_check_reads_the_same_characters_whatever_the_reader_and_the_chunks(tmp_path, reader, chunk):
    # a NUL among the first TEXT_SAMPLE characters is found, one after them is not; the characters
    # before it are 2 bytes each in UTF-8, so that counting bytes instead would decide otherwise
    head = ("é" * 9 + " ") * (TEXT_SAMPLE // 10)
    for at, refused in ((TEXT_SAMPLE - 1, True), (TEXT_SAMPLE, False)):
        text = (head + "x" * 10)[:at] + "\x00" + " tail\n"
        p = tmp_path / f"nul-at-{at}.txt"
        p.write_text(text, encoding="utf-8")
        if refused:
            with pytest.raises(CorpusError, match="NUL"):
                scan([str(p)], reader, chunk_chars=chunk)
        else:
            assert scan([str(p)], reader, chunk_chars=chunk).n_tokens > 0


def test_the_rule_of_the_text_check():
    assert not_text_reason("plain text\n") is None
    assert "NUL" in not_text_reason("plain\x00text")
    assert not_text_reason("\ufffd" * (MIN_SHARE_SAMPLE - 1)) is None   # too few characters to judge a share
    assert "100% of its first 256 characters" in not_text_reason("\ufffd" * MIN_SHARE_SAMPLE)
    whitespace = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85 " * 100   # control characters that str.split() splits at
    assert not_text_reason(whitespace) is None
    assert not_text_reason("a\x01" * 200) is not None
    assert not_text_reason("word " * 70 + "\ufffd" * 99) is None and not_text_reason("word " * 70 + "\ufffd" * 200)


def test_binary_standard_input_is_refused(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(executable_bytes())))
    with pytest.raises(CorpusError, match="corpus - does not look like text"):
        scan_corpus(["-"])


def test_the_start_of_each_file_is_checked_for_a_corpus_read_elsewhere(tmp_path):
    # Dask's workers read the corpus: the driver checks the start of each file before they start
    good = tmp_path / "good.txt"
    good.write_text("one two three\n" * 100)
    exe = tmp_path / "d" / "program"
    exe.parent.mkdir()
    exe.write_bytes(executable_bytes())
    check_text_files([str(good)])
    with pytest.raises(CorpusError, match="program does not look like text"):
        check_text_files([str(good), str(exe.parent)])
    check_text_files([str(good), str(exe.parent)], allow_binary=True)


def test_word2vec_refuses_a_binary_corpus_before_training_and_on_a_cluster(tmp_path, monkeypatch):
    import w2v.distributed
    from w2v import Word2Vec

    exe = tmp_path / "program"
    exe.write_bytes(executable_bytes())
    with pytest.raises(CorpusError, match="does not look like text"):
        Word2Vec(min_count=1, epochs=1, threads=1).train(str(exe))
    called = []
    monkeypatch.setattr(w2v.distributed, "train_distributed", lambda *a, **k: called.append(1))
    with pytest.raises(CorpusError, match="does not look like text"):
        Word2Vec(min_count=1, epochs=1, threads=1).train(str(exe), client=object())
    assert not called, "refused before the cluster reads it"
    Word2Vec(min_count=1, epochs=1, threads=1).train(str(exe), client=object(), allow_binary=True)
    assert called


# --------------------------------------------------------------------------- links, loops, files named twice
def write(path, text="one two three\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_links_to_folders_inside_a_corpus_folder_are_followed(tmp_path):
    d = tmp_path / "corpus"
    a = write(d / "a.txt")
    write(tmp_path / "elsewhere" / "b.txt")
    write(tmp_path / "elsewhere" / "sub" / "c.txt")
    (d / "m-link").symlink_to(tmp_path / "elsewhere")
    z = write(d / "z" / "z.txt")
    write(tmp_path / "single.txt")
    (d / "file-link.txt").symlink_to(tmp_path / "single.txt")
    write(tmp_path / "elsewhere2" / "e.txt")
    (d / ".hidden-link").symlink_to(tmp_path / "elsewhere2")   # hidden: skipped, as hidden files are
    # os.walk's order: a folder's files in sorted order, then its folders in sorted order
    assert resolve_inputs([str(d)]) == [a, str(d / "file-link.txt"), str(d / "m-link" / "b.txt"),
                                        str(d / "m-link" / "sub" / "c.txt"), z]


def test_a_broken_link_inside_a_corpus_folder_is_an_error(tmp_path):
    d = tmp_path / "corpus"
    write(d / "a.txt")
    (d / ".#a.txt").symlink_to(tmp_path / "an editor's lock")   # hidden: skipped
    assert resolve_inputs([str(d)]) == [str(d / "a.txt")]
    (d / "sub").mkdir()
    (d / "sub" / "gone.txt").symlink_to(tmp_path / "deleted.txt")
    with pytest.raises(CorpusError, match=f"broken link in corpus folder: {d / 'sub' / 'gone.txt'} -> "):
        resolve_inputs([str(d)])
    (tmp_path / "top-link").symlink_to(tmp_path / "nowhere")
    with pytest.raises(CorpusError, match="corpus path is a broken link: .*top-link -> .*nowhere"):
        resolve_inputs([str(tmp_path / "top-link")])


def test_a_folder_link_that_loops_is_an_error(tmp_path):
    d = tmp_path / "corpus"
    write(d / "a.txt")
    (d / "sub").mkdir()
    (d / "sub" / "up").symlink_to(d)
    with pytest.raises(CorpusError, match=f"corpus folder {d / 'sub' / 'up'} is a link back to {d}: a loop"):
        resolve_inputs([str(d)])


def test_something_that_is_not_a_file_inside_a_corpus_folder_is_an_error(tmp_path):
    d = tmp_path / "corpus"
    write(d / "a.txt")
    os.mkfifo(d / "pipe")
    with pytest.raises(CorpusError, match="corpus folder holds something that is not a file: .*pipe"):
        resolve_inputs([str(d)])


@pytest.mark.parametrize("case", ["same-path", "folder-and-file-in-it", "link-to-a-file", "hard-link",
                                  "folder-twice", "link-to-a-folder-in-the-corpus", "file-in-a-linked-folder"])
def test_a_file_reached_twice_is_refused(tmp_path, case):
    d = tmp_path / "corpus"
    a = write(d / "a.txt")
    write(d / "sub" / "b.txt")
    (tmp_path / "link.txt").symlink_to(d / "a.txt")
    os.link(d / "a.txt", tmp_path / "hard.txt")
    if case in ("link-to-a-folder-in-the-corpus", "file-in-a-linked-folder"):
        (tmp_path / "dir-link").symlink_to(d / "sub")
    paths, pattern = {
        "same-path": ([a, a], f"corpus file {a} is given twice"),
        "folder-and-file-in-it": ([str(d), a], f"corpus file {a} is given twice"),
        "link-to-a-file": ([a, str(tmp_path / "link.txt")], f"link.txt is also given as {a}"),
        "hard-link": ([str(tmp_path / "hard.txt"), str(d)], f"corpus file {a} is also given as .*hard.txt"),
        "folder-twice": ([str(d), str(d)], f"corpus folder {d} is given twice"),
        "link-to-a-folder-in-the-corpus": ([str(d), str(tmp_path / "dir-link")],
                                           f"corpus folder .*dir-link is also given as {d / 'sub'}"),
        "file-in-a-linked-folder": ([str(tmp_path / "dir-link" / "b.txt"), str(d)], "b.txt is also given as"),
    }[case]
    with pytest.raises(CorpusError, match=pattern + ".*read twice; name each file once"):
        resolve_inputs(paths)
