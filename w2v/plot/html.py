"""The word map as one self-contained HTML page: SVG drawn by an inlined script, no network.

Scroll to zoom (around the pointer), drag to pan, double-click to reset;
hovering a point or its label shows the word and its nearest words (with
their cosines).  Labels are placed again after every zoom and pan, none
overlapping another: a label with no free spot stays hidden until zooming
in makes room (its point and its hover stay).  The page needs nothing but a
browser: the data and the script are in the file, which works offline.
"""
import html
import json
import re

import numpy as np

from .choose import DEFAULT_TOP, select_words
from .project import best_method, project
from .wordmap import GROUP_COLOURS, LABEL_COLOUR, POINT_COLOUR, default_title

__all__ = ["word_map_html", "page"]

HOVER_NEIGHBOURS = 8


def word_map_html(kv, top=DEFAULT_TOP, skip_top=0, words=None, neighbours=None, topn=10, method="auto", seed=1,
                  restrict_vocab=None, title=None, hover_neighbours=HOVER_NEIGHBOURS):
    """A word map of ``kv`` as a self-contained interactive HTML page.

    Parameters
    ----------
    kv : KeyedVectors
    top, skip_top, words, neighbours, topn, method, seed, restrict_vocab, title
        As :func:`w2v.plot.word_map`.
    hover_neighbours : int
        The nearest words a hover shows, searched among the words of ``kv``
        (its first ``restrict_vocab``).

    Returns
    -------
    str
        The page.

    Raises
    ------
    MissingExtraError
        ``method`` needs a package that is not installed.
    UnknownWordError, ParameterError
        As :func:`w2v.plot.select_words`.
    """
    selection = select_words(kv, top=top, skip_top=skip_top, words=words, neighbours=neighbours, topn=topn,
                             restrict_vocab=restrict_vocab)
    method = best_method() if method in (None, "auto") else method
    # a map of neighbour groups keeps groups of topn + 1 words apart
    coords = project(selection.vectors, method, seed, group=topn + 1 if neighbours else None)
    near = kv.most_similar_batch(selection.words, topn=hover_neighbours, restrict_vocab=restrict_vocab)
    if title is None:
        title = default_title(selection, top, skip_top, words, neighbours, method)
    return page(selection, coords, near, title)


def page(selection, coords, near, title):
    """The HTML of a map of ``selection`` at ``coords``, with each word's ``near`` words for the hover."""
    coords = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    lo, hi = (coords.min(axis=0), coords.max(axis=0)) if len(coords) else (np.zeros(2), np.ones(2))
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    unit = (coords - lo) / span   # 0..1 each way; the script stretches it over the window, as the png does
    data = {
        "words": list(selection.words),
        "x": [round(float(v), 5) for v in unit[:, 0]],
        "y": [round(float(v), 5) for v in unit[:, 1]],
        "group": [int(g) for g in selection.groups],
        "head": [bool(h) for h in selection.heads],
        "groups": list(selection.group_names),
        "colours": list(GROUP_COLOURS) if selection.group_names else [POINT_COLOUR],
        "near": [[[w, round(float(c), 3)] for w, c in answer] for answer in near],
    }
    # "<" only occurs inside JSON strings: as \u003c no word can end the script element
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    values = {"TITLE": html.escape(title), "LABEL": LABEL_COLOUR, "DATA": payload,
              "SCRIPT": SCRIPT.replace("{{LABEL}}", LABEL_COLOUR)}
    return re.sub(r"\{\{(TITLE|LABEL|DATA|SCRIPT)\}\}", lambda m: values[m.group(1)], TEMPLATE)


TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
html, body { margin: 0; height: 100%; font-family: "DejaVu Sans", Verdana, Arial, sans-serif; color: {{LABEL}}; }
#head { position: absolute; top: 0; left: 0; right: 0; padding: 6px 10px; background: rgba(255,255,255,0.9);
        font-size: 14px; z-index: 2; pointer-events: none; }
#head small { color: #666; }
#map { position: absolute; top: 0; left: 0; width: 100%; height: 100%; cursor: grab; touch-action: none; }
#map.dragging { cursor: grabbing; }
#map text { font-size: 12px; user-select: none; }
#map text.head { font-size: 14px; font-weight: bold; }
#map circle.hover, #map text.hover { stroke: #000; }
#tip { position: absolute; display: none; background: #fff; border: 1px solid #999; border-radius: 4px;
       padding: 6px 9px; font-size: 13px; box-shadow: 0 2px 6px rgba(0,0,0,0.2); pointer-events: none; z-index: 3; }
#tip b { font-size: 14px; }
#tip table { border-collapse: collapse; margin-top: 3px; }
#tip td { padding: 0 6px 0 0; }
#tip td.c { color: #666; text-align: right; }
</style>
</head>
<body>
<div id="head">{{TITLE}} <small>&mdash; scroll to zoom, drag to pan, double-click to reset,
hover a point for its nearest words</small></div>
<svg id="map" xmlns="http://www.w3.org/2000/svg"><g id="lines"></g><g id="points"></g><g id="labels"></g></svg>
<div id="tip"></div>
<script id="data" type="application/json">{{DATA}}</script>
<script>{{SCRIPT}}</script>
</body>
</html>
"""

SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var svg = document.getElementById("map"), tip = document.getElementById("tip");
  var gPoints = document.getElementById("points"), gLabels = document.getElementById("labels");
  var gLines = document.getElementById("lines");
  var n = D.words.length, circles = [], labels = [], leaders = [], widths = [], heights = [];
  var view = {k: 1, tx: 0, ty: 0}, base = {s: 1, ox: 0, oy: 0}, pending = false;

  function colour(i) { return D.colours[D.group[i] % D.colours.length]; }
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var a in attrs) { e.setAttribute(a, attrs[a]); }
    parent.appendChild(e);
    return e;
  }
  for (var i = 0; i < n; i++) {
    circles.push(el("circle", {r: D.head[i] ? 5 : 3.5, fill: colour(i), "data-i": i}, gPoints));
    leaders.push(el("line", {stroke: "#9a9a9a", "stroke-width": 0.7}, gLines));
    var t = el("text", {"data-i": i, fill: D.groups.length ? colour(i) : "{{LABEL}}"}, gLabels);
    if (D.head[i]) { t.setAttribute("class", "head"); }
    t.textContent = D.words[i];
    labels.push(t);
  }
  // the order labels are placed in: heads first, then the words in their order
  var order = [];
  for (i = 0; i < n; i++) { if (D.head[i]) { order.push(i); } }
  for (i = 0; i < n; i++) { if (!D.head[i]) { order.push(i); } }

  // the map fills the window (as the png does), with room for the labels at its edges
  function fit() {
    var w = svg.clientWidth, h = svg.clientHeight, top = 40, pad = 60;
    base = {sx: Math.max(10, w - 2.5 * pad), sy: Math.max(10, h - top - 2 * pad), ox: pad, oy: h - pad};
  }
  function px(i) { return base.ox + view.tx + view.k * base.sx * D.x[i]; }
  function py(i) { return base.oy + view.ty - view.k * base.sy * D.y[i]; }

  function measure() {
    for (var i = 0; i < n; i++) {
      var b = labels[i].getBBox();
      widths.push(b.width);
      heights.push(b.height);
    }
  }
  // candidate offsets of a label's box from its point: right, left, above, below, diagonals, further out
  var DIRS = [[1, 0], [-1, 0], [0, -1], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1]];
  var CELL = 40, GAP = 3, RINGS = 7;
  function Grid() { this.cells = {}; }
  Grid.prototype.each = function (b, f) {
    for (var cx = Math.floor(b[0] / CELL); cx <= Math.floor(b[2] / CELL); cx++) {
      for (var cy = Math.floor(b[1] / CELL); cy <= Math.floor(b[3] / CELL); cy++) {
        if (f(cx + "," + cy) === false) { return false; }
      }
    }
    return true;
  };
  Grid.prototype.add = function (b) {
    var cells = this.cells;
    this.each(b, function (k) { (cells[k] = cells[k] || []).push(b); });
  };
  // whether box b keeps GAP from every box of the grid
  Grid.prototype.free = function (b) {
    var cells = this.cells;
    return this.each([b[0] - GAP, b[1] - GAP, b[2] + GAP, b[3] + GAP], function (k) {
      var list = cells[k] || [];
      for (var j = 0; j < list.length; j++) {
        var o = list[j];
        if (b[0] < o[2] + GAP && b[2] > o[0] - GAP && b[1] < o[3] + GAP && b[3] > o[1] - GAP) { return false; }
      }
    });
  };
  // how many points (other than point i) box b covers
  Grid.prototype.covers = function (b, i) {
    var cells = this.cells, seen = 0;
    this.each(b, function (k) {
      var list = cells[k] || [];
      for (var j = 0; j < list.length; j++) {
        var o = list[j];
        if (o[4] !== i && o[0] < b[2] && o[2] > b[0] && o[1] < b[3] && o[3] > b[1]) { seen++; }
      }
    });
    return seen;
  };
  function place() {
    pending = false;
    var W = svg.clientWidth, H = svg.clientHeight, shown = 0, boxes = new Grid(), points = new Grid();
    for (var i = 0; i < n; i++) {
      var x = px(i), y = py(i), r = D.head[i] ? 5 : 3.5;
      circles[i].setAttribute("cx", x.toFixed(1));
      circles[i].setAttribute("cy", y.toFixed(1));
      points.add([x - r, y - r, x + r, y + r, i]);
    }
    for (var o = 0; o < order.length; o++) {
      i = order[o];
      var best = null, bestCost = Infinity, bestRing = 0, w = widths[i], h = heights[i];
      x = px(i);
      y = py(i);
      for (var ring = 0; ring < RINGS && bestCost > 0; ring++) {
        r = 5 + ring * h * 0.7;
        for (var d = 0; d < DIRS.length; d++) {
          var cx = x + DIRS[d][0] * (r + w / 2), cy = y + DIRS[d][1] * (r + h / 2);
          var b = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
          if (b[0] < 0 || b[2] > W || b[1] < 36 || b[3] > H || !boxes.free(b)) { continue; }
          var cost = points.covers(b, i) * 3 + ring;
          if (cost < bestCost) { best = b; bestCost = cost; bestRing = ring; }
          if (cost === ring) { break; }
        }
        if (best && bestCost <= ring) { break; }
      }
      if (best) {
        boxes.add(best);
        labels[i].setAttribute("x", best[0].toFixed(1));
        labels[i].setAttribute("y", (best[3] - 0.25 * h).toFixed(1));
        labels[i].style.display = "";
        shown++;
      } else {
        labels[i].style.display = "none";
      }
      if (best && bestRing >= 2) {   // a label placed away from its point: a leader line to it
        leaders[i].setAttribute("x1", x.toFixed(1));
        leaders[i].setAttribute("y1", y.toFixed(1));
        leaders[i].setAttribute("x2", Math.min(Math.max(x, best[0]), best[2]).toFixed(1));
        leaders[i].setAttribute("y2", Math.min(Math.max(y, best[1]), best[3]).toFixed(1));
        leaders[i].style.display = "";
      } else {
        leaders[i].style.display = "none";
      }
    }
    svg.setAttribute("data-labels-shown", shown);
  }
  function redraw() { if (!pending) { pending = true; window.requestAnimationFrame(place); } }

  function showTip(i, ex, ey) {
    var rows = D.near[i].map(function (p) {
      return "<tr><td>" + esc(p[0]) + "</td><td class=\"c\">" + p[1].toFixed(3) + "</td></tr>";
    }).join("");
    tip.innerHTML = "<b>" + esc(D.words[i]) + "</b>" +
      (D.groups.length ? " <small>(near " + esc(D.groups[D.group[i]]) + ")</small>" : "") +
      "<table>" + rows + "</table>";
    tip.style.display = "block";
    var left = ex + 14, topY = ey + 14;
    if (left + tip.offsetWidth > window.innerWidth) { left = ex - tip.offsetWidth - 14; }
    if (topY + tip.offsetHeight > window.innerHeight) { topY = ey - tip.offsetHeight - 14; }
    tip.style.left = Math.max(0, left) + "px";
    tip.style.top = Math.max(0, topY) + "px";
    circles[i].setAttribute("class", "hover");
    tip.setAttribute("data-word", D.words[i]);
  }
  function hideTip() {
    tip.style.display = "none";
    for (var i = 0; i < n; i++) { circles[i].removeAttribute("class"); }
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c];
    });
  }

  var drag = null;
  svg.addEventListener("mouseover", function (e) {
    var i = e.target.getAttribute && e.target.getAttribute("data-i");
    if (i !== null && i !== undefined && !drag) { showTip(+i, e.clientX, e.clientY); }
  });
  svg.addEventListener("mouseout", function (e) {
    if (e.target.getAttribute && e.target.getAttribute("data-i") !== null) { hideTip(); }
  });
  svg.addEventListener("wheel", function (e) {
    e.preventDefault();
    var f = Math.exp(-e.deltaY * 0.0015), r = svg.getBoundingClientRect();
    var mx = e.clientX - r.left - base.ox, my = e.clientY - r.top - base.oy;
    var k = Math.max(0.2, Math.min(200, view.k * f));
    f = k / view.k;
    view.tx = mx - (mx - view.tx) * f;
    view.ty = my - (my - view.ty) * f;
    view.k = k;
    redraw();
  }, {passive: false});
  svg.addEventListener("pointerdown", function (e) {
    drag = {x: e.clientX, y: e.clientY, tx: view.tx, ty: view.ty};
    svg.setPointerCapture(e.pointerId);
    svg.classList.add("dragging");
    hideTip();
  });
  svg.addEventListener("pointermove", function (e) {
    if (!drag) { return; }
    view.tx = drag.tx + e.clientX - drag.x;
    view.ty = drag.ty + e.clientY - drag.y;
    redraw();
  });
  function endDrag() { drag = null; svg.classList.remove("dragging"); }
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  svg.addEventListener("dblclick", function () { view = {k: 1, tx: 0, ty: 0}; redraw(); });
  window.addEventListener("resize", function () { fit(); redraw(); });

  // pairs of shown labels whose boxes overlap, as the browser drew them
  function overlaps() {
    var boxes = [], count = 0;
    for (var i = 0; i < n; i++) {
      if (labels[i].style.display !== "none") { boxes.push(labels[i].getBBox()); }
    }
    for (var a = 0; a < boxes.length; a++) {
      for (var b = a + 1; b < boxes.length; b++) {
        var p = boxes[a], q = boxes[b];
        if (p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height) { count++; }
      }
    }
    return count;
  }
  // options after # in the address: zoom=K (around the centre), hover=WORD, check (count overlaps)
  var opts = {};
  window.location.hash.slice(1).split("&").forEach(function (part) {
    var kv = part.split("=");
    if (kv[0]) { opts[kv[0]] = decodeURIComponent(kv[1] || ""); }
  });
  fit();
  measure();
  if (+opts.zoom > 0) {
    var cx = svg.clientWidth / 2 - base.ox, cy = svg.clientHeight / 2 - base.oy;
    view = {k: +opts.zoom, tx: cx * (1 - +opts.zoom), ty: cy * (1 - +opts.zoom)};
  }
  place();
  svg.setAttribute("data-points", n);
  if (opts.hover !== undefined && D.words.indexOf(opts.hover) >= 0) {
    var at = D.words.indexOf(opts.hover);
    showTip(at, px(at), py(at));
  }
  if (opts.check !== undefined) { svg.setAttribute("data-overlaps", overlaps()); }
  document.documentElement.setAttribute("data-ready", "true");
})();
"""
