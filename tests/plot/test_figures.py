"""The pictures: word maps and training curves, from the API and from each command, decoded and looked into."""
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("matplotlib", reason="pictures need matplotlib: pip install 'w2v[plot]'")

import w2v  # noqa: E402
import w2v.plot  # noqa: E402
from w2v.plot.wordmap import check_no_overlaps, label_boxes  # noqa: E402
from w2v_cli.main import main  # noqa: E402

from ..support.plot_cases import HEADS, clustered_vectors  # noqa: E402

FAST = dict(dim=16, min_count=3, seed=3, threads=1)


def decoded(path):
    """The pixels of a PNG file, decoded: ``(height, width, channels)`` floats in 0..1."""
    from matplotlib.image import imread
    return imread(str(path))


def assert_picture(path, width, height):
    """A decodable PNG of ``width`` x ``height`` pixels with something drawn on it."""
    pixels = decoded(path)
    assert pixels.shape[:2] == (height, width)
    grey = pixels[..., :3].mean(axis=2)
    assert grey.std() > 0.02                  # not a blank page
    assert (grey < 0.5).mean() > 0.002        # dark ink: text and lines


def rendered_figure(fig):
    fig.canvas.draw()
    return fig


# ------------------------------------------------------------------ word maps from the API
def test_word_map_is_a_figure_of_the_asked_size_without_overlaps(tmp_path):
    from matplotlib.figure import Figure

    kv = clustered_vectors()
    fig = rendered_figure(w2v.plot.word_map(kv, top=300, method="pca", size=(1400, 1000)))
    assert isinstance(fig, Figure)
    assert len(fig.axes[0].texts) == 300 and check_no_overlaps(fig) == []
    boxes = label_boxes(fig)
    frame = fig.axes[0].get_window_extent()
    assert (boxes[:, 0] >= frame.x0).all() and (boxes[:, 2] <= frame.x1).all()
    assert (boxes[:, 1] >= frame.y0).all() and (boxes[:, 3] <= frame.y1).all()
    w2v.plot.save_figure(fig, tmp_path / "m.png")
    assert_picture(tmp_path / "m.png", 1400, 1000)


def test_neighbour_groups_get_a_colour_each_and_bold_heads():
    from matplotlib.colors import to_hex

    fig = rendered_figure(w2v.plot.word_map(clustered_vectors(), neighbours=list(HEADS), topn=10))
    texts = fig.axes[0].texts
    assert len(texts) == 44 and check_no_overlaps(fig) == []
    heads = [t for t in texts if t.get_fontweight() == "bold"]
    assert [t.get_text() for t in heads] == list(HEADS)
    assert len({to_hex(t.get_color()) for t in heads}) == 4
    for t in texts:   # each label has its head's colour
        head = next(h for h in heads if t.get_text().startswith(h.get_text()))
        assert to_hex(t.get_color()) == to_hex(head.get_color())
    assert "alpha, beta, gamma, delta and their nearest words" in fig.texts[0].get_text()


def test_a_crowded_map_shrinks_its_labels_until_none_overlaps():
    from w2v.plot.choose import Selection
    from w2v.plot.wordmap import draw_word_map

    n = 300
    words = [f"a-rather-long-label-{i}" for i in range(n)]
    sel = Selection(words, np.zeros((n, 2), np.float32), np.zeros(n, np.int64), [], np.zeros(n, bool))
    coords = np.random.default_rng(0).standard_normal((n, 2))
    fig = rendered_figure(draw_word_map(sel, coords, size=(800, 600)))
    assert len(fig.axes[0].texts) == n and check_no_overlaps(fig) == []
    assert fig.axes[0].texts[0].get_fontsize() < 8.0


def test_svg_word_map(tmp_path):
    fig = w2v.plot.word_map(clustered_vectors(), top=50, method="pca", size=(1000, 800))
    w2v.plot.save_figure(fig, tmp_path / "m.svg")
    root = ET.parse(tmp_path / "m.svg").getroot()
    assert root.get("width") == "720pt" and root.get("height") == "576pt"   # 1000 x 800 pixels at 100 dpi
    assert len(root.findall(".//{http://www.w3.org/2000/svg}use")) > 200  # glyphs of the labels


# ------------------------------------------------------------------ the plot command
@pytest.fixture(scope="module")
def vectors_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("vectors") / "v.bin"
    w2v.vectors.keyed.save_word2vec_format(clustered_vectors(), path)
    return path


@pytest.mark.parametrize("args, size", [
    ([], (1600, 1200)),
    (["--size", "900x700", "--method", "pca", "--skip-top", "20", "--top", "100"], (900, 700)),
    (["--neighbours", "alpha", "beta", "--topn", "5", "--size", "800x600"], (800, 600)),
    (["--words", "alpha,beta,gamma,delta,alpha_1,beta_1", "--size", "640x480", "--method", "pca"], (640, 480)),
])
def test_plot_command_pictures(vectors_file, tmp_path, args, size):
    out = tmp_path / "map.png"
    result = CliRunner().invoke(main, ["plot", str(vectors_file), "-o", str(out), *args])
    assert result.exit_code == 0, result.output
    assert_picture(out, *size)


def test_plot_command_errors_are_one_line(vectors_file, tmp_path):
    def run(*args):
        return CliRunner().invoke(main, ["plot", str(vectors_file), "-o", str(tmp_path / "m.png"), *args])

    for args, message in [(["--neighbours", "nope"], "Error: not in the vocabulary: 'nope'\n"),
                          (["--words", "alpha,nope"], "Error: not in the vocabulary: 'nope'\n"),
                          (["--size", "12"], "Error: size must be WIDTHxHEIGHT in pixels, e.g. 1600x1200 (got '12')\n"),
                          (["--format", "svg", "--size", "50x50"],
                           "Error: size must be from 100 to 10000 pixels each way (got 50x50)\n")]:
        result = run(*args)
        assert result.exit_code == 1 and result.output == message, result.output
    assert run("alpha").exit_code == 2          # words need --neighbours
    assert run("--neighbours").exit_code == 2   # --neighbours needs words
    result = CliRunner().invoke(main, ["plot", str(vectors_file), "-o", str(tmp_path / "m.gif")])
    assert result.exit_code == 1 and "cannot write the format 'gif'" in result.output
    missing = CliRunner().invoke(main, ["plot", str(tmp_path / "none.bin"), "-o", str(tmp_path / "m.png")])
    assert missing.exit_code == 1 and "no such file" in missing.output
    assert not (tmp_path / "m.png").exists()


# ------------------------------------------------------------------ training curves
def test_train_plot_training_and_plot_run(small_corpus, tmp_path):
    run_png, report = tmp_path / "run.png", tmp_path / "r.json"
    result = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "16",
                                       "--epochs", "3", "--threads", "1", "-q", "--report-json", str(report),
                                       "--plot-training", str(run_png)])
    assert result.exit_code == 0, result.output
    assert_picture(run_png, 1200, 900)
    again = CliRunner().invoke(main, ["plot-run", str(report), "--size", "1000x700"])
    assert again.exit_code == 0, again.output
    assert_picture(tmp_path / "r.png", 1000, 700)
    fig = rendered_figure(w2v.plot.training(json.loads(report.read_text())))
    assert [ax.get_ylabel() for ax in fig.axes] == ["running loss", "k words/s", "learning rate"]
    series = w2v.plot.curves.run_series(json.loads(report.read_text()))
    assert len(series["epoch_ends"]) == 2 and series["resumes"] == []
    dotted = [ln for ln in fig.axes[2].lines if ln.get_linestyle() == ":"]
    assert len(dotted) == 2   # the ends of epochs 1 and 2


def test_plot_run_errors(tmp_path):
    def run(text):
        (tmp_path / "r.json").write_text(text)
        return CliRunner().invoke(main, ["plot-run", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.png")])

    assert run("{").output.startswith(f"Error: {tmp_path / 'r.json'}: not valid JSON")
    old = run(json.dumps({"epoch_loss": [2.0], "settings": {"epochs": 1}}))
    assert old.exit_code == 1 and old.output == (
        f"Error: {tmp_path / 'r.json'}: the report's progress has no columns\n")
    empty = run(json.dumps({"progress": {"columns": ["segment"], "ticks": []}}))
    assert "holds no progress ticks" in empty.output and empty.output.count("\n") == 1
    assert not (tmp_path / "r.png").exists()


def test_the_curves_of_a_resumed_run_join_its_segments(small_corpus, tmp_path):
    from w2v.model.word2vec import Word2Vec

    class Crash(Exception):
        pass

    m = Word2Vec(epochs=4, **FAST)

    def crash(epoch):
        m.save(str(tmp_path / "ckpt"))
        if epoch == 1:
            raise Crash

    with pytest.raises(Crash):
        m.train(str(small_corpus), on_epoch_end=crash)
    m.close()
    resumed = Word2Vec.load(str(tmp_path / "ckpt")).train(str(small_corpus))
    series = w2v.plot.curves.run_series(resumed.last_train)
    assert len(series["resumes"]) == 1 and len(series["epoch_ends"]) == 3
    assert np.all(np.diff(series["time"]) >= 0)       # one time axis: the second segment follows the first
    assert series["epoch_ends"][0] < series["resumes"][0] <= series["epoch_ends"][2]
    fig = rendered_figure(w2v.plot.training(resumed.last_train))
    assert len([ln for ln in fig.axes[0].lines if ln.get_linestyle() == "--"]) == 1
    assert "segments of the resumed run joined" in fig.axes[-1].get_xlabel()


@pytest.mark.parametrize("listed", [True, False])
def test_the_curves_of_a_dask_run_show_the_merge_time_per_round(tmp_path, listed):
    # a report's rounds: one entry per round (the slowest merge task of each is drawn), or the
    # table of rows that older reports hold
    ticks = [[0, 0.5 * k, k / 10, 1 + (k > 5), 1e6, 0.025 * (1 - k / 10), 3.0 - 0.1 * k] for k in range(1, 11)]
    merge = [0.05 + 0.01 * k for k in range(8)]
    if listed:
        rounds = [{"epoch": 1 + (k >= 4), "round": k % 4 + 1, "workers": 2, "tokens": 100, "wall_seconds": 0.6,
                   "train_seconds": [0.5, 0.4], "merge_seconds": [merge[k] / 2, merge[k]], "sent_bytes": [1, 2],
                   "received_bytes": [2, 1]} for k in range(8)]
    else:
        rounds = {"columns": ["epoch", "round", "rounds", "seconds", "merge_seconds", "train_seconds"],
                  "rows": [[1 + (k >= 4), k % 4 + 1, 1, 0.6, merge[k], 0.5] for k in range(8)]}
    report = {"progress": {"columns": list(w2v.training.lifecycle.TICK_COLUMNS), "ticks": ticks},
              "rounds": rounds, "settings": {"epochs": 2, "model": "sg", "dim": 16}, "corpus": ["/data/c.txt"],
              "train_seconds": 5.0, "words_per_sec": 1e6}
    fig = rendered_figure(w2v.plot.training(report, size=(900, 900)))
    assert [ax.get_ylabel() for ax in fig.axes][-1] == "merge s / round"
    x, y = fig.axes[-1].lines[0].get_data()
    assert np.allclose(y, merge) and np.allclose(x, 0.6 * np.arange(1, 9))
    assert "skip-gram, dim 16, 2 epochs; c.txt; 5.0 s, 1,000k words/s" in fig._suptitle.get_text()
    w2v.plot.save_figure(fig, tmp_path / "d.png")
    assert_picture(tmp_path / "d.png", 900, 900)
