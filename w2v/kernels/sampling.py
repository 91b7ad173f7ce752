"""Kernels of the sampling tables: Vose's alias table of the noise distribution and word2vec.c's
linear-time Huffman tree (:mod:`w2v.training.sampling` builds the tables with them)."""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def build_alias(prob):
    # Vose's alias method: split each scaled probability between itself and one donor.
    n = prob.size
    scaled = prob * n
    alias = np.arange(n).astype(np.int32)
    accept = np.ones(n, np.float64)
    small = np.empty(n, np.int64)
    large = np.empty(n, np.int64)
    ns = 0
    nl = 0
    for i in range(n):
        if scaled[i] < 1.0:
            small[ns] = i
            ns += 1
        else:
            large[nl] = i
            nl += 1
    while ns > 0 and nl > 0:
        ns -= 1
        s = small[ns]
        nl -= 1
        g = large[nl]
        accept[s] = scaled[s]
        alias[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        if scaled[g] < 1.0:
            small[ns] = g
            ns += 1
        else:
            large[nl] = g
            nl += 1
    # leftovers are 1 up to rounding
    for k in range(ns):
        accept[small[k]] = 1.0
    for k in range(nl):
        accept[large[k]] = 1.0
    return accept, alias


@njit(cache=True, nogil=True)
def huffman_codes(counts):
    # word2vec.c's linear-time construction: counts sorted descending, leaves at
    # 0..V-1, inner nodes at V..2V-2 created in increasing weight order.
    v = counts.size
    count = np.empty(2 * v, np.int64)
    count[:v] = counts
    count[v:] = np.iinfo(np.int64).max // 4
    parent = np.zeros(2 * v, np.int64)
    binary = np.zeros(2 * v, np.int8)
    pos1 = v - 1
    pos2 = v
    for a in range(v - 1):
        # two smallest nodes: leaves from the end (pos1), inner nodes from pos2
        if pos1 >= 0 and count[pos1] < count[pos2]:
            min1 = pos1
            pos1 -= 1
        else:
            min1 = pos2
            pos2 += 1
        if pos1 >= 0 and count[pos1] < count[pos2]:
            min2 = pos1
            pos1 -= 1
        else:
            min2 = pos2
            pos2 += 1
        count[v + a] = count[min1] + count[min2]
        parent[min1] = v + a
        parent[min2] = v + a
        binary[min2] = 1
    lengths = np.zeros(v, np.int32)
    for w in range(v):
        b = w
        n = 0
        while b != 2 * v - 2:
            n += 1
            # a path has at most V - 1 inner nodes; more means a cycle in parent[]
            # (a construction bug): fail instead of spinning forever
            if n >= v:
                raise RuntimeError("Huffman construction left a cycle in the tree")
            b = parent[b]
        lengths[w] = n
    maxlen = max(1, lengths.max()) if v > 0 else 1
    codes = np.zeros((v, maxlen), np.int8)
    points = np.zeros((v, maxlen), np.int32)
    for w in range(v):
        n = lengths[w]
        b = w
        i = n - 1
        # walk leaf -> root, fill codes/points root -> leaf
        while b != 2 * v - 2:
            codes[w, i] = binary[b]
            points[w, i] = parent[b] - v   # inner node index in 0..V-2 (a row of syn1)
            b = parent[b]
            i -= 1
    return codes, points, lengths
