"""Words are drawn literally in PNG and SVG maps: matplotlib's mathtext never reads them."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="pictures need matplotlib: pip install 'w2v[plot]'")

import matplotlib  # noqa: E402

import w2v.plot  # noqa: E402
from w2v import KeyedVectors  # noqa: E402

HOSTILE = ["$x^2$", "$\\alpha$", "$\\sqrt{2}$", "$\\frac{$", "a$b", "plain"]


def hostile_kv():
    rng = np.random.default_rng(5)
    return KeyedVectors(HOSTILE, rng.standard_normal((len(HOSTILE), 8)).astype(np.float32),
                        counts=np.arange(len(HOSTILE), 0, -1))


def svg_texts(path):
    """The strings of the ``<text>`` elements of an SVG written with ``svg.fonttype: none``."""
    root = ET.parse(path).getroot()
    return ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]


def test_hostile_words_are_drawn_as_written_in_svg(tmp_path):
    fig = w2v.plot.word_map(hostile_kv(), words=HOSTILE, method="pca", title="$\\frac{$ and $x^2$")
    with matplotlib.rc_context({"svg.fonttype": "none"}):   # text as <text> elements, not glyph paths
        w2v.plot.save_figure(fig, tmp_path / "m.svg")
    texts = svg_texts(tmp_path / "m.svg")
    for word in HOSTILE:
        assert word in texts, (word, texts)
    assert "$\\frac{$ and $x^2$" in texts
    assert "x" not in texts and "α" not in "".join(texts)   # mathtext would draw x, 2 and α apart


def test_a_word_that_breaks_mathtext_draws_a_png(tmp_path):
    fig = w2v.plot.word_map(hostile_kv(), words=["$\\frac{$", "plain"], method="pca")
    w2v.plot.save_figure(fig, tmp_path / "m.png")
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [t.get_text() for t in fig.axes[0].texts] == ["$\\frac{$", "plain"]


def test_the_command_draws_a_map_of_hostile_words(tmp_path):
    from click.testing import CliRunner   # the CLI package, for this test only

    from w2v_cli.main import main

    hostile_kv().save_word2vec_format(tmp_path / "v.txt")
    res = CliRunner().invoke(main, ["plot", str(tmp_path / "v.txt"), "-o", str(tmp_path / "m.png"),
                                    "--method", "pca"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
