"""w2v's LineSentence, PathLineSentences and Text8Corpus (w2v.text.sentences), against gensim's of the same names."""
import gzip

import pytest

from w2v.errors import CorpusError
from w2v.text.sentences import LineSentence, PathLineSentences, Text8Corpus, file_backed

gensim = pytest.importorskip("gensim")
G = gensim.models.word2vec

TEXT = ("a b c\n\n d e f g h i j\nk\u00a0l m\tn\r\n" + " ".join(map(str, range(25))) + "\nlast")


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "texts"
    d.mkdir()
    (d / "b.txt").write_text(TEXT, encoding="utf-8")
    (d / "a.txt").write_text("first file\nof two\n", encoding="utf-8")
    (d / ".hidden").write_text("hidden but read\n", encoding="utf-8")
    (d / "sub").mkdir()
    return d


@pytest.mark.parametrize("max_sentence_length", [3, 4, 10000])
def test_line_sentence_yields_what_gensims_yields(folder, max_sentence_length):
    path = str(folder / "b.txt")
    assert list(LineSentence(path, max_sentence_length)) == list(G.LineSentence(path, max_sentence_length))
    assert list(LineSentence(path, max_sentence_length, limit=2)) == \
        list(G.LineSentence(path, max_sentence_length, limit=2))
    with open(path, "rb") as f:
        assert list(LineSentence(f, max_sentence_length)) == list(G.LineSentence(f, max_sentence_length))
        assert list(LineSentence(f, max_sentence_length)) == list(G.LineSentence(f, max_sentence_length))


@pytest.mark.parametrize("max_sentence_length", [3, 10000])
def test_path_line_sentences_reads_the_files_of_a_folder_in_name_order_as_gensim(folder, max_sentence_length):
    ours = PathLineSentences(str(folder), max_sentence_length)
    theirs = G.PathLineSentences(str(folder), max_sentence_length)
    theirs.input_files = [f for f in theirs.input_files if not f.endswith("sub")]   # gensim opens the folder
    assert list(ours) == list(theirs)
    assert list(PathLineSentences(str(folder), limit=1)) == [["hidden", "but", "read"], ["first", "file"],
                                                             ["a", "b", "c"]]
    with pytest.raises(CorpusError, match="neither a file nor a folder"):
        PathLineSentences(str(folder / "missing"))


def test_text8_corpus_cuts_every_max_sentence_length_tokens_across_lines(folder):
    path = str(folder / "b.txt")
    tokens = TEXT.split()
    assert list(Text8Corpus(path, 4)) == [tokens[i:i + 4] for i in range(0, len(tokens), 4)]
    assert list(Text8Corpus(path, 4)) == list(G.Text8Corpus(path, 4))
    assert list(Text8Corpus(path)) == list(G.Text8Corpus(path)) == [tokens]


def test_sentences_are_restartable_and_read_compressed_files(tmp_path):
    path = tmp_path / "c.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("one two\nthree\n")
    corpus = LineSentence(str(path))
    assert list(corpus) == list(corpus) == [["one", "two"], ["three"]]


def test_a_long_line_is_handed_out_in_pieces_without_reading_it_whole(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text(" ".join(f"w{i}" for i in range(300_000)), encoding="utf-8")
    pieces = LineSentence(str(path), 10000)
    first = next(iter(pieces))
    assert first == [f"w{i}" for i in range(10000)]
    assert sum(map(len, pieces)) == 300_000


def test_file_backed_corpora_are_those_whose_files_give_their_sentences(folder):
    path = str(folder / "b.txt")
    for cls in (LineSentence, G.LineSentence):
        assert file_backed(cls(path)) == [path]
        assert file_backed(cls(path, limit=3)) is None
        assert file_backed(cls(path, 500)) is None
        assert file_backed(cls(path, 500), max_sentence_length=500) == [path]
        assert file_backed(cls(path), tokenizer="simple") is None
        assert file_backed(cls(path), lowercase=True) is None
        with open(path, "rb") as f:
            assert file_backed(cls(f)) is None
    assert file_backed(PathLineSentences(str(folder))) == PathLineSentences(str(folder)).input_files
    assert file_backed(Text8Corpus(path)) is None
    assert file_backed([["a"]]) is None

    class Mine(LineSentence):   # a subclass may yield anything
        pass

    assert file_backed(Mine(path)) is None
