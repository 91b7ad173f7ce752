"""Label placement without overlaps, in pixels: each label goes to the nearest free spot by its point.

Labels are placed one by one, in the order given (the most important
first).  For each, candidate boxes lie on rings around its point: just
right of it first, then left, above, below and the diagonals, then further
out.  A candidate is taken only if it stays inside the drawing area and
touches no label placed before it (with a gap of a few pixels); among those,
the nearest that covers the fewest other points wins.  A label with no free
spot on its rings is searched for on a grid over the whole area, and drawn
with a leader line to its point.  Only a label that finds no free spot at
all is left out (the caller then draws smaller text), so that labels never
overlap one another.
"""
import numpy as np

__all__ = ["Placement", "place_labels", "overlapping_pairs"]

RINGS = 10                       # rings of candidates around a point
# ring 0's directions, in order of preference: right, left, above, below, then the diagonals
FIRST_DIRECTIONS = (0, 180, 90, 270, 45, 135, 315, 225)
POINT_COST = 6.0                 # a point covered costs as much as moving this many rings out
LEADER_RING = 2                  # labels from this ring out get a leader line
CELL = 3.0                       # pixels of a cell of the grid searched when no ring has a free spot
NEAREST = 64                     # the free candidates nearest their point that compete on points covered


class Placement:
    """Where the labels went.

    Attributes
    ----------
    boxes : numpy.ndarray
        ``(n, 4)`` boxes ``x0, y0, x1, y1`` in pixels; NaN for a label left out.
    leaders : numpy.ndarray
        bool, the labels placed away from their point (drawn with a leader line).
    """

    def __init__(self, n):
        self.boxes = np.full((n, 4), np.nan)
        self.leaders = np.zeros(n, bool)

    @property
    def placed(self):
        """bool, the labels that found a spot."""
        return ~np.isnan(self.boxes[:, 0])


def _directions(ring):
    if ring == 0:
        angles = np.radians(FIRST_DIRECTIONS)
    else:
        angles = np.radians(np.concatenate([FIRST_DIRECTIONS, np.arange(22.5, 360, 45)]))
    return np.cos(angles), np.sin(angles)


def _ring_candidates(anchor, size, marker, step):
    """Candidate boxes around ``anchor``: ``(c, 4)`` and their ring numbers and ranks."""
    w, h = size
    boxes, costs = [], []
    for ring in range(RINGS):
        cx, cy = _directions(ring)
        r = marker + ring * step
        centre_x = anchor[0] + cx * (r + w / 2)
        centre_y = anchor[1] + cy * (r + h / 2)
        boxes.append(np.stack([centre_x - w / 2, centre_y - h / 2, centre_x + w / 2, centre_y + h / 2], axis=1))
        costs.append(ring + np.arange(len(cx)) * 0.01)
    return np.concatenate(boxes), np.concatenate(costs)


class _Occupancy:
    """The placed labels, with their gaps, rasterized in cells of :data:`CELL` pixels: a box that
    touches no marked cell overlaps no label (a cell touched at all is marked)."""

    def __init__(self, bounds, gap):
        self.x0, self.y0 = bounds[0], bounds[1]
        self.nx = max(1, int((bounds[2] - bounds[0]) // CELL))
        self.ny = max(1, int((bounds[3] - bounds[1]) // CELL))
        self.cells = np.zeros((self.ny, self.nx), np.int32)
        self.gap = gap

    def add(self, box):
        g = self.gap
        i0, j0 = (max(0, int(np.floor((v - g - o) / CELL))) for v, o in ((box[0], self.x0), (box[1], self.y0)))
        i1 = min(self.nx, int(np.ceil((box[2] + g - self.x0) / CELL)))
        j1 = min(self.ny, int(np.ceil((box[3] + g - self.y0) / CELL)))
        self.cells[j0:j1, i0:i1] = 1

    def free_boxes(self, size, anchor):
        """The boxes of ``size`` on the cell grid that touch no marked cell: ``(c, 4)``, those
        nearest ``anchor`` (in a window that doubles until it holds one, or the whole area)."""
        wc, hc = int(np.ceil(size[0] / CELL)), int(np.ceil(size[1] / CELL))
        if wc > self.nx or hc > self.ny:
            return np.zeros((0, 4))
        ci, cj = (anchor[0] - self.x0) / CELL, (anchor[1] - self.y0) / CELL
        reach = 4 * (wc + hc)
        while True:   # lower-left cells i0..i1, j0..j1 of the boxes in the window
            i0, j0 = max(0, int(ci - reach)), max(0, int(cj - reach))
            i1, j1 = min(self.nx - wc, int(ci + reach)), min(self.ny - hc, int(cj + reach))
            whole = i0 == 0 and j0 == 0 and i1 == self.nx - wc and j1 == self.ny - hc
            if i1 >= i0 and j1 >= j0:
                region = self.cells[j0:j1 + hc, i0:i1 + wc]   # the cells the window's boxes cover
                total = np.zeros((region.shape[0] + 1, region.shape[1] + 1), np.int32)
                total[1:, 1:] = region.cumsum(axis=0).cumsum(axis=1)
                marked = total[hc:, wc:] - total[:-hc, wc:] - total[hc:, :-wc] + total[:-hc, :-wc]
                j, i = np.nonzero(marked == 0)
                if len(i) or whole:
                    x, y = self.x0 + (i + i0) * CELL, self.y0 + (j + j0) * CELL
                    return np.stack([x, y, x + size[0], y + size[1]], axis=1)
            elif whole:
                return np.zeros((0, 4))
            reach *= 2


def _grid_spot(anchor, size, occupancy, points, marker, step):
    """The best free spot on the cell grid: the nearest, among them the one covering fewest points."""
    boxes = occupancy.free_boxes(size, anchor)
    if not len(boxes):
        return None, None
    nearest_x = np.clip(anchor[0], boxes[:, 0], boxes[:, 2])
    nearest_y = np.clip(anchor[1], boxes[:, 1], boxes[:, 3])
    cost = RINGS + np.hypot(nearest_x - anchor[0], nearest_y - anchor[1]) / step
    return _cheapest(boxes, cost, np.ones(len(boxes), bool), points, marker)


def _free(candidates, placed, gap, bounds):
    """bool per candidate: inside ``bounds`` and at least ``gap`` from every placed box."""
    x0, y0, x1, y1 = bounds
    ok = ((candidates[:, 0] >= x0) & (candidates[:, 1] >= y0) & (candidates[:, 2] <= x1)
          & (candidates[:, 3] <= y1))
    if len(placed) and ok.any():
        c = candidates[ok]
        hit = ((c[:, None, 0] < placed[None, :, 2] + gap) & (c[:, None, 2] > placed[None, :, 0] - gap)
               & (c[:, None, 1] < placed[None, :, 3] + gap) & (c[:, None, 3] > placed[None, :, 1] - gap))
        ok[np.flatnonzero(ok)] = ~hit.any(axis=1)
    return ok


def _points_covered(candidates, points, marker):
    """How many of ``points`` (discs of radius ``marker``) each candidate box covers."""
    if not len(points):
        return np.zeros(len(candidates))
    px, py = points[None, :, 0], points[None, :, 1]
    inside = ((px + marker > candidates[:, None, 0]) & (px - marker < candidates[:, None, 2])
              & (py + marker > candidates[:, None, 1]) & (py - marker < candidates[:, None, 3]))
    return inside.sum(axis=1)


def _best(candidates, cost, placed, points, gap, bounds, marker):
    return _cheapest(candidates, cost, _free(candidates, placed, gap, bounds), points, marker)


def _cheapest(candidates, cost, ok, points, marker):
    """Among the candidates ``ok``, the :data:`NEAREST` cheapest compete on the points they cover."""
    if not ok.any():
        return None, None
    idx = np.flatnonzero(ok)
    if len(idx) > NEAREST:
        idx = idx[np.argpartition(cost[idx], NEAREST)[:NEAREST]]
    idx = idx[np.argsort(cost[idx], kind="stable")]
    area = candidates[idx]
    points = points[(points[:, 0] + marker > area[:, 0].min()) & (points[:, 0] - marker < area[:, 2].max())
                    & (points[:, 1] + marker > area[:, 1].min()) & (points[:, 1] - marker < area[:, 3].max())]
    total = cost[idx] + POINT_COST * _points_covered(area, points, marker)
    k = idx[int(np.argmin(total))]
    return candidates[k], cost[k]


def place_labels(anchors, sizes, bounds, order=None, marker=4.0, gap=2.0):
    """Boxes for labels of ``sizes`` by the points ``anchors``, none overlapping another.

    Parameters
    ----------
    anchors : numpy.ndarray
        ``(n, 2)`` points in pixels.
    sizes : numpy.ndarray
        ``(n, 2)`` width and height of each label in pixels.
    bounds : tuple of float
        ``(x0, y0, x1, y1)``: every box lies inside.
    order : sequence of int, optional
        The order of placement (the first get the nearest spots); by index when None.
    marker : float
        Pixels from a point to its label (the marker's radius and a little air).
    gap : float
        The least distance between two labels, in pixels.

    Returns
    -------
    Placement
    """
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2)
    n = len(anchors)
    out = Placement(n)
    placed = np.zeros((0, 4))
    occupancy = _Occupancy(bounds, gap)
    for i in (range(n) if order is None else order):
        step = max(4.0, 0.6 * sizes[i, 1])
        others = np.delete(anchors, i, axis=0)
        box, cost = _best(*_ring_candidates(anchors[i], sizes[i], marker, step), placed, others, gap, bounds,
                          marker)
        if box is None:
            box, cost = _grid_spot(anchors[i], sizes[i], occupancy, others, marker, step)
        if box is None:
            continue
        out.boxes[i] = box
        out.leaders[i] = cost >= LEADER_RING
        placed = np.vstack([placed, box])
        occupancy.add(box)
    return out


def overlapping_pairs(boxes, gap=0.0):
    """The pairs ``(i, j)``, ``i < j``, of boxes ``(n, 4)`` that overlap (closer than ``gap``)."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)   # a NaN box (left out) overlaps nothing
    hit = ((b[:, None, 0] < b[None, :, 2] + gap) & (b[:, None, 2] > b[None, :, 0] - gap)
           & (b[:, None, 1] < b[None, :, 3] + gap) & (b[:, None, 3] > b[None, :, 1] - gap))
    i, j = np.nonzero(np.triu(hit, 1))
    return list(zip(i.tolist(), j.tolist()))
