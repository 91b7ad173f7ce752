"""The interactive word map in a real browser: headless Chromium loads it offline, runs its script
without a console message, draws a point per word, shows a hover, and no label overlaps another."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import w2v.plot

from ..support.plot_cases import HEADS, clustered_vectors

BROWSER = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="needs Chromium (apt-get install chromium)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--window-size=1400,1000", "--virtual-time-budget=5000"]


def browse(tmp_path, page, fragment, *action):
    """Chromium's ``action`` (``--dump-dom``, ``--screenshot=...``) on ``page``, offline; its console lines."""
    profile = tmp_path / f"profile{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    result = subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={profile}", *action,
                             f"{page.as_uri()}#{fragment}"], capture_output=True, text=True, timeout=120)
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return result.stdout, console


def attribute(dom, name):
    found = re.search(rf'{name}="([^"]*)"', dom)
    return found and found.group(1)


@pytest.fixture(scope="module")
def kv():
    return clustered_vectors()


def test_the_page_loads_offline_and_draws_every_word(kv, tmp_path):
    page = tmp_path / "map.html"
    page.write_text(w2v.plot.word_map_html(kv, top=300, method="pca"), encoding="utf-8")
    dom, console = browse(tmp_path, page, "hover=filler3&check", "--dump-dom")
    assert console == []
    assert attribute(dom, "data-ready") == "true"
    assert dom.count("<circle") == 300 and attribute(dom, "data-points") == "300"
    assert dom.count("<text") == 300
    shown = int(attribute(dom, "data-labels-shown"))
    assert 100 <= shown <= 300 and attribute(dom, "data-overlaps") == "0"
    tip = re.search(r'<div id="tip" data-word="filler3"[^>]*>(.*?)</div>', dom).group(1)
    assert "display: block" in re.search(r'<div id="tip"[^>]*>', dom).group(0)
    for word, _ in kv.most_similar("filler3", topn=8):
        assert f"<td>{word}</td>" in tip


def test_labels_are_placed_again_without_overlaps_when_zoomed(kv, tmp_path):
    page = tmp_path / "map.html"
    page.write_text(w2v.plot.word_map_html(kv, top=300, method="pca"), encoding="utf-8")
    dom, console = browse(tmp_path, page, "check", "--dump-dom")
    zoomed, more = browse(tmp_path, page, "zoom=3&check", "--dump-dom")
    assert console == more == []
    assert attribute(dom, "data-overlaps") == attribute(zoomed, "data-overlaps") == "0"
    assert int(attribute(zoomed, "data-labels-shown")) > 0
    assert re.search(r'<circle[^>]*cx="([-0-9.]+)"', dom).group(1) != re.search(
        r'<circle[^>]*cx="([-0-9.]+)"', zoomed).group(1)


def test_neighbour_groups_page_and_its_screenshot(kv, tmp_path):
    imread = pytest.importorskip("matplotlib.image", reason="decoding the screenshot needs matplotlib").imread
    page = tmp_path / "groups.html"
    page.write_text(w2v.plot.word_map_html(kv, neighbours=list(HEADS), topn=10, method="pca"), encoding="utf-8")
    dom, console = browse(tmp_path, page, "check", "--dump-dom")
    assert console == [] and dom.count("<circle") == 44
    # PCA lays two groups over each other: a few of their labels wait for a zoom
    assert int(attribute(dom, "data-labels-shown")) >= 40 and attribute(dom, "data-overlaps") == "0"
    colours = set(re.findall(r'<circle[^>]*fill="(#[0-9A-Fa-f]{6})"', dom))
    assert len(colours) == 4
    shot = tmp_path / "shot.png"
    browse(tmp_path, page, "hover=alpha", f"--screenshot={shot}")
    pixels = imread(str(shot))
    assert pixels.shape[:2] == (1000, 1400)
    assert pixels[..., :3].mean(axis=2).std() > 0.02
    assert np.isclose(pixels[..., :3], [0, 114 / 255, 178 / 255], atol=0.02).all(axis=2).sum() > 20  # alpha's blue
