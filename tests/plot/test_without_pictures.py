"""w2v.plot without pictures: the rows read, the words chosen, projections, label placement, the
HTML page's data, TensorBoard projector files, and the one-line errors of missing extras."""
import importlib.util
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import w2v
from w2v.errors import FormatError, ParameterError, UnknownWordError
from w2v.plot import MissingExtraError, export_projector, load_rows, parse_word_list, project, rows_needed, select_words
from w2v.plot.labels import overlapping_pairs, place_labels

from ..conftest import ROOT
from ..support.plot_cases import HEADS, clustered_vectors, write_native

HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
needs_matplotlib = pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="pictures need matplotlib: pip install 'w2v[plot]'")


def run_cli(*args, block=(), timeout=120):
    """``w2v ARGS`` in a new process, with the packages ``block`` made unimportable."""
    code = ("import sys\n"
            f"for name in {list(block)!r}: sys.modules[name] = None\n"
            "from w2v_cli.main import main\n"
            f"sys.argv = ['w2v'] + {[str(a) for a in args]!r}\n"
            "main()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def test_w2v_plot_after_a_plain_import_w2v():
    code = "import sys, w2v; assert 'w2v.plot' not in sys.modules; print(w2v.plot.word_map.__name__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout == "word_map\n", result.stderr


# ------------------------------------------------------------------ the rows read
def test_load_rows_reads_only_the_rows_asked(tmp_path):
    model = tmp_path / "model"
    write_native(model, 2000, 8, poison_after=500)   # rows 500.. hold NaN, vocab.tsv line 501 is broken
    with pytest.raises(FormatError):
        w2v.load(model)                               # a reader of every row sees them
    kv = load_rows(model, 300)
    assert len(kv) == 300 and kv.index_to_key[:2] == ["w0", "w1"] and kv.counts[0] == 20000
    assert not isinstance(kv.vectors, np.memmap) and np.isfinite(kv.vectors).all()
    assert np.array_equal(kv.vectors, np.load(model / "vectors.npy", mmap_mode="r")[:300])
    with pytest.raises(FormatError, match="line 501"):
        load_rows(model, 501)                         # the rows asked are checked


def test_load_rows_of_word2vec_files_and_whole_models(tmp_path):
    kv = clustered_vectors()
    w2v.vectors.keyed.save_word2vec_format(kv, tmp_path / "v.bin")
    head = load_rows(tmp_path / "v.bin", 10)
    assert head.index_to_key == kv.index_to_key[:10] and np.array_equal(head.vectors, kv.vectors[:10])
    assert len(load_rows(tmp_path / "v.bin")) == len(kv)
    assert len(load_rows(tmp_path / "v.bin", 10 ** 6)) == len(kv)
    with pytest.raises(ParameterError):
        load_rows(tmp_path / "v.bin", 0)


def test_load_rows_of_a_damaged_native_meta_names_the_problem(tmp_path):
    model = tmp_path / "model"
    write_native(model, 50, 4)
    (model / "meta.json").write_text("{")
    with pytest.raises(FormatError, match="meta.json"):
        load_rows(model, 10)


@needs_matplotlib
def test_a_map_of_a_3m_word_model_takes_under_10_seconds(tmp_path):
    model = tmp_path / "model"
    write_native(model, 3_000_000, 100, random_rows=1000)
    start = time.perf_counter()
    result = run_cli("plot", model, "--top", "300", "--method", "pca", "-o", tmp_path / "map.png")
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr
    assert seconds < 10, f"{seconds:.1f}s"
    assert (tmp_path / "map.png").stat().st_size > 10_000


# ------------------------------------------------------------------ the words chosen
def test_select_the_most_frequent_words_after_the_stop_words():
    kv = clustered_vectors()
    sel = select_words(kv, top=20, skip_top=5)
    assert sel.words == kv.index_to_key[5:25] and np.array_equal(sel.vectors, kv.vectors[5:25])
    assert not sel.group_names and not sel.heads.any()
    assert rows_needed(top=20, skip_top=5) == 25 and rows_needed(words=["a"]) is None
    assert rows_needed(neighbours=["a"]) is None


def test_select_neighbour_groups():
    kv = clustered_vectors()
    sel = select_words(kv, neighbours=list(HEADS), topn=10)
    assert sel.group_names == list(HEADS) and len(sel) == 44
    for g, head in enumerate(HEADS):
        members = [w for w, k in zip(sel.words, sel.groups) if k == g]
        assert members[0] == head and all(w.startswith(head) for w in members)
    assert sel.heads.sum() == 4 and [sel.words[i] for i in np.flatnonzero(sel.heads)] == list(HEADS)


def test_select_listed_words_and_unknown_ones(tmp_path):
    kv = clustered_vectors()
    assert select_words(kv, words=["beta", "alpha", "beta"]).words == ["beta", "alpha"]
    with pytest.raises(UnknownWordError, match="'nope'.*'nada'"):
        select_words(kv, words=["alpha", "nope", "nada"])
    with pytest.raises(UnknownWordError, match="'nope'"):
        select_words(kv, neighbours=["nope"])
    listed = tmp_path / "words.txt"
    listed.write_text("alpha beta\ngamma\n\n")
    assert parse_word_list(str(listed)) == ["alpha", "beta", "gamma"]
    assert parse_word_list("alpha, beta,,gamma") == ["alpha", "beta", "gamma"]
    with pytest.raises(ParameterError):
        parse_word_list(" , ")


# ------------------------------------------------------------------ projections
def _groups_apart(coords, groups):
    """The share of points whose three nearest points on the map are of their own group."""
    d = ((coords[:, None] - coords[None]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    nearest = np.argsort(d, axis=1)[:, :3]
    return (groups[nearest] == groups[:, None]).mean()


@pytest.mark.parametrize("method", ["pca", "tsne", pytest.param("umap", marks=pytest.mark.slow)])
def test_each_group_of_neighbours_is_its_own_cluster(method):
    from w2v.plot import installed_methods
    if method not in installed_methods():
        pytest.skip(f"{method} is not installed (w2v[plot], w2v[umap])")
    sel = select_words(clustered_vectors(), neighbours=list(HEADS), topn=10)
    coords = project(sel.vectors, method, seed=1, group=11)
    assert coords.shape == (44, 2) and np.isfinite(coords).all()
    # a linear projection may lay two of the four groups over each other; the others keep each apart
    assert _groups_apart(coords, sel.groups) >= (0.75 if method == "pca" else 1.0)
    if method != "pca":   # each group is farther from the others than it is wide
        d = np.sqrt(((coords[:, None] - coords[None]) ** 2).sum(-1))
        for g in range(4):
            mine = sel.groups == g
            assert d[mine][:, ~mine].min() > d[mine][:, mine].max()
    assert np.array_equal(coords, project(sel.vectors, method, seed=1, group=11))   # the same seed, the same map


def test_pca_is_numpy_and_its_signs_are_fixed():
    x = np.random.default_rng(0).standard_normal((50, 10))
    a = project(x, "pca")
    assert np.allclose(project(-x, "pca"), -a)      # the same components, whatever the SVD's signs
    assert np.allclose(project(x * 3, "pca"), a)    # unit rows: the scale of a vector does not count
    assert np.allclose(np.cov(a.T)[0, 1], 0, atol=1e-12) and a[:, 0].var() >= a[:, 1].var()
    with pytest.raises(ParameterError):
        project(x, "lda")


def test_missing_projection_packages_name_the_extra(monkeypatch):
    for name in ("openTSNE", "sklearn", "umap"):
        monkeypatch.setitem(sys.modules, name, None)
    from w2v.plot import best_method, installed_methods
    assert installed_methods() == ["pca"] and best_method() == "pca"
    x = np.random.default_rng(0).standard_normal((30, 5))
    with pytest.raises(MissingExtraError, match=r"w2v\[plot\]"):
        project(x, "tsne")
    with pytest.raises(MissingExtraError, match=r"w2v\[umap\]"):
        project(x, "umap")
    assert project(x, "auto").shape == (30, 2)


# ------------------------------------------------------------------ label placement
@pytest.mark.parametrize("spread", ["uniform", "clumped", "one spot"])
def test_300_labels_never_overlap(spread):
    rng = np.random.default_rng(1)
    points = {"uniform": rng.random((300, 2)) * [1500, 1100],
              "clumped": 700 + rng.standard_normal((300, 2)) * 120,
              "one spot": 800 + rng.standard_normal((300, 2))}[spread] + [50, 50]
    sizes = np.column_stack([rng.integers(20, 90, 300), np.full(300, 12)])
    bounds = (0, 0, 1600, 1200)
    placement = place_labels(points, sizes, bounds)
    assert placement.placed.all()
    boxes = placement.boxes
    assert overlapping_pairs(boxes, gap=1.9) == []
    assert np.allclose(boxes[:, 2] - boxes[:, 0], sizes[:, 0]) and np.allclose(boxes[:, 3] - boxes[:, 1], 12)
    assert (boxes[:, :2] >= 0).all() and (boxes[:, 2] <= 1600).all() and (boxes[:, 3] <= 1200).all()
    if spread == "uniform":   # room enough: most labels sit right by their point
        assert (~placement.leaders).mean() > 0.9


def test_labels_that_cannot_fit_are_left_out_not_overlapped():
    points = np.full((50, 2), 50.0)
    placement = place_labels(points, np.full((50, 2), 40.0), (0, 0, 100, 100))
    assert 0 < placement.placed.sum() < 50
    assert overlapping_pairs(placement.boxes) == []


# ------------------------------------------------------------------ the html page's data
def test_the_html_page_is_self_contained_with_its_data():
    from w2v.plot import word_map_html

    kv = clustered_vectors()
    page = word_map_html(kv, neighbours=["alpha", "beta"], topn=5, method="pca")
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "").replace('"http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "<script src" not in page and "<link" not in page
    data = json.loads(page.split('<script id="data" type="application/json">')[1].split("</script>")[0])
    assert data["words"][:6] == ["alpha"] + [w for w, _ in kv.most_similar("alpha", topn=5)]
    assert data["groups"] == ["alpha", "beta"] and len(data["near"]) == len(data["words"]) == 12
    assert data["near"][0][0][0].startswith("alpha_")


def test_words_cannot_break_out_of_the_page():
    from w2v.plot.choose import Selection
    from w2v.plot.html import page

    words = ["</script><script>alert(1)</script>", "<!--", "a&b"]
    sel = Selection(words, np.zeros((3, 2), np.float32), np.zeros(3, np.int64), [], np.zeros(3, bool))
    text = page(sel, np.eye(3)[:, :2], [[("x<y", 0.5)]] * 3, title="<b>t</b>")
    assert "</script><script>alert" not in text and "<!--" not in text and "<b>t</b>" not in text
    data = json.loads(text.split('type="application/json">')[1].split("</script>")[0])
    assert data["words"] == words and data["near"][0][0] == ["x<y", 0.5]


# ------------------------------------------------------------------ TensorBoard projector
def test_projector_files_parse_back_to_the_same_vectors_and_words(tmp_path):
    kv = clustered_vectors()
    kv.vectors[0, 0] = np.float32(1 / 3)
    paths = export_projector(kv, tmp_path / "proj")
    assert [os.path.basename(p) for p in paths] == ["tensors.tsv", "metadata.tsv", "projector_config.pbtxt"]
    tensors = np.loadtxt(tmp_path / "proj" / "tensors.tsv", delimiter="\t", dtype=np.float32)
    assert np.array_equal(tensors, kv.vectors)
    lines = (tmp_path / "proj" / "metadata.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "word\tcount"
    assert [ln.split("\t") for ln in lines[1:]] == [[w, str(c)] for w, c in zip(kv.index_to_key, kv.counts)]
    config = (tmp_path / "proj" / "projector_config.pbtxt").read_text()
    assert 'tensor_path: "tensors.tsv"' in config and 'metadata_path: "metadata.tsv"' in config
    assert config.startswith("embeddings {") and config.rstrip().endswith("}")


def test_projector_limit_and_vectors_without_counts(tmp_path):
    kv = clustered_vectors()
    w2v.vectors.keyed.save_word2vec_format(kv, tmp_path / "v.bin")
    plain = w2v.load(tmp_path / "v.bin")
    export_projector(plain, tmp_path / "p", limit=7)
    assert (tmp_path / "p" / "metadata.tsv").read_text().splitlines() == kv.index_to_key[:7]   # one column
    assert np.loadtxt(tmp_path / "p" / "tensors.tsv", delimiter="\t").shape == (7, 32)
    with pytest.raises(ParameterError):
        export_projector(plain, tmp_path / "q", limit=0)
    (tmp_path / "file").write_text("x")
    with pytest.raises(w2v.OutputError):
        export_projector(plain, tmp_path / "file")


def test_cli_export_projector_reads_only_the_rows_asked(tmp_path):
    model = tmp_path / "model"
    write_native(model, 300, 6, poison_after=120)
    result = run_cli("export", model, "--projector", tmp_path / "proj", "--limit", "100")
    assert result.returncode == 0, result.stderr
    assert "wrote 100 x 6 vectors" in result.stderr
    tensors = np.loadtxt(tmp_path / "proj" / "tensors.tsv", delimiter="\t", dtype=np.float32)
    assert np.array_equal(tensors, np.load(model / "vectors.npy")[:100])


# ------------------------------------------------------------------ missing extras: one line
def test_without_matplotlib_each_picture_is_a_one_line_error(tmp_path, monkeypatch):
    kv = clustered_vectors()
    w2v.vectors.keyed.save_word2vec_format(kv, tmp_path / "v.bin")
    commands = [("plot", tmp_path / "v.bin", "-o", tmp_path / "m.png"),
                ("plot", tmp_path / "v.bin", "-o", tmp_path / "m.svg", "--method", "pca"),
                ("plot-run", tmp_path / "r.json"),
                ("train", ROOT / "data" / "corpus-small.txt.xz", "-o", tmp_path / "x.bin", "--plot-training",
                 tmp_path / "run.png")]
    (tmp_path / "r.json").write_text("{}")
    for args in commands:
        result = run_cli(*args, block=["matplotlib"])
        assert result.returncode == 1, (args, result.stderr)
        assert result.stderr == "Error: pictures need matplotlib: pip install 'w2v[plot]'\n", args
    assert not (tmp_path / "x.bin").exists()   # train stops before reading the corpus
    ok = run_cli("plot", tmp_path / "v.bin", "-o", tmp_path / "m.html", "--method", "pca", block=["matplotlib"])
    assert ok.returncode == 0, ok.stderr   # the html page needs no matplotlib
    assert (tmp_path / "m.html").stat().st_size > 1000
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'w2v\[plot\]'"):
        w2v.plot.word_map(kv)
    with pytest.raises(MissingExtraError):
        w2v.plot.training({})


def test_without_tsne_packages_the_method_is_a_one_line_error(tmp_path):
    kv = clustered_vectors()
    w2v.vectors.keyed.save_word2vec_format(kv, tmp_path / "v.bin")
    result = run_cli("plot", tmp_path / "v.bin", "-o", tmp_path / "m.html", "--method", "tsne",
                     block=["openTSNE", "sklearn"])
    assert result.returncode == 1
    assert result.stderr == "Error: --method tsne needs openTSNE or scikit-learn: pip install 'w2v[plot]'\n"
    result = run_cli("plot", tmp_path / "v.bin", "-o", tmp_path / "m.html", "--method", "umap", block=["umap"])
    assert result.stderr == "Error: --method umap needs umap-learn: pip install 'w2v[umap]'\n"
