"""Numba training kernels (CPU; the optional CUDA kernels live in ``w2v.cuda``)."""
