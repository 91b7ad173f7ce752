"""Numba compilation options and numeric limits shared by the CPU kernels."""
import numpy as np

# Explicit compilation options: no GIL (Python threads run kernels in
# parallel), fastmath so that LLVM vectorizes reductions (the loss over a
# step's scores) and fuses multiply-adds, cached on disk so only the first run
# pays compilation.  fastmath also lets LLVM reorder a sum each time it
# optimizes a function, and the run that compiles the kernels runs other
# compiled copies of them than the runs that load them from the cache: sums over
# a row are written in w2v.kernels.simd vectors (docs/reproducibility.md).
KERNEL_OPTIONS = dict(nogil=True, fastmath=True, cache=True, error_model="numpy", boundscheck=False)
# Functions that allocate nothing are compiled without Numba's reference
# counting (the private but long-standing ``_nrt=False`` flag).  With it,
# every call of a helper that takes arrays costs an atomic increment and
# decrement per array (the refcount pruning pass cannot remove them across
# loops); per trained word that was ~12% of the time on one thread, and on
# two threads the shared arrays' counters bounced between the cores.
INNER_OPTIONS = dict(KERNEL_OPTIONS, _nrt=False)

SIGMOID_CLIP = np.float32(20.0)  # sigmoid(20) == 1 in float32; keeps exp() finite
# A pair whose score x.o is at or beyond +-MAX_SCORE gets no update (its loss
# still counts), as in gensim (`if f_dot <= -MAX_EXP or f_dot >= MAX_EXP:
# continue`) and in word2vec.c's hierarchical softmax; word2vec.c's negative
# sampling applies the saturated gradient instead.  Skipping them is what the
# quality is compared with, and it scores higher: CBOW, 17M-token wiki slice,
# five seeds, analogy +0.2 points with every seed.
MAX_SCORE = np.float32(6.0)
