"""Files w2v reads or replaces beside the model formats: word2vec.c vocabulary files (``fvocab``),
the modes of replaced outputs, the temporaries a killed write left, and words no file can hold."""
import pytest

from w2v import KeyedVectors
from w2v.errors import FormatError
from w2v.formats import read_vocab_counts

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
