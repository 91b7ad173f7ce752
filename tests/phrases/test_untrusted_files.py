"""Phrase model folders are untrusted: the loader and the saver read ``meta.json`` as every model reader does.

A regular file in the folder, at most ``MAX_JSON_BYTES``, nested at most ``MAX_JSON_DEPTH``
levels; anything else is a :class:`~w2v.errors.FormatError` (loading) or a refusal to replace
the folder (saving), never a traceback, a blocked process or memory without end.
"""
import json
import os

import pytest

from w2v.errors import FormatError, OutputError
from w2v.phrases.model import FrozenPhrases, Phrases, load_phrases

from ..support.bounded_child import run_bounded

SENTENCES = [["new", "york", "is", "big"], ["new", "york", "city"], ["los", "angeles", "is", "far"]] * 5


@pytest.fixture
def saved(tmp_path):
    model = Phrases(SENTENCES, min_count=1, threshold=0.1)
    model.save(tmp_path / "m")
    return tmp_path / "m"


@pytest.mark.parametrize("loader", [Phrases.load, FrozenPhrases.load, load_phrases])
def test_deeply_nested_meta_is_a_format_error(saved, loader):
    (saved / "meta.json").write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(FormatError, match=r"meta.json: JSON nested 5000 levels deep"):
        loader(saved)


def test_nesting_inside_the_settings_is_a_format_error(saved):
    meta = json.loads((saved / "meta.json").read_text())
    meta["settings"]["connector_words"] = "@@"
    text = json.dumps(meta).replace('"@@"', "[" * 3000 + "]" * 3000)
    (saved / "meta.json").write_text(text)
    with pytest.raises(FormatError, match="nested"):
        load_phrases(saved)


def test_a_link_out_of_the_folder_is_refused(saved, tmp_path):
    Phrases(SENTENCES[:3], min_count=1, threshold=0.1).save(tmp_path / "other")
    os.remove(saved / "meta.json")
    os.symlink(tmp_path / "other" / "meta.json", saved / "meta.json")
    with pytest.raises(FormatError, match="outside the model directory"):
        load_phrases(saved)


def test_the_cli_prints_one_line_for_a_nested_meta(saved, tmp_path):
    from click.testing import CliRunner   # the CLI package, for this test only

    from w2v_cli.main import main

    (saved / "meta.json").write_text("[" * 5000 + "]" * 5000)
    corpus = tmp_path / "c.txt"
    corpus.write_text("new york is big\n")
    res = CliRunner().invoke(main, ["phrases", str(corpus), "--apply", str(saved), "-o", str(tmp_path / "o.txt")])
    assert res.exit_code != 0 and (res.exception is None or isinstance(res.exception, SystemExit))
    assert "JSON nested 5000 levels deep" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
@pytest.mark.parametrize("save", ["Phrases", "FrozenPhrases"])
def test_saving_over_a_folder_whose_meta_is_special_neither_blocks_nor_grows(saved, special, save):
    """The old meta.json is read only as a regular file, bounded: the folder is then no phrase model."""
    os.remove(saved / "meta.json")
    if special == "fifo":
        os.mkfifo(saved / "meta.json")
    else:
        os.symlink("/dev/zero", saved / "meta.json")
    res = run_bounded("from w2v.phrases.model import Phrases, FrozenPhrases\nfrom w2v.errors import OutputError",
                      f"""
                      m = Phrases({SENTENCES!r}, min_count=1, threshold=0.1)
                      m = m if {save!r} == "Phrases" else m.freeze()
                      try:
                          m.save({str(saved)!r})
                      except OutputError as exc:
                          print("refused:", exc)
                      """, timeout=60)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "does not hold a phrase model" in res.stdout
    assert os.path.lexists(saved / "meta.json")     # the folder is left as it was


def test_a_folder_with_a_deep_meta_is_not_replaced(saved):
    (saved / "meta.json").write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(OutputError, match="does not hold a phrase model"):
        Phrases(SENTENCES, min_count=1, threshold=0.1).save(saved)
    assert (saved / "meta.json").read_text().startswith("[[[")
