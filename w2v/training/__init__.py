"""Training on any back end: the run lifecycle, the Hogwild CPU runner, deterministic lanes, the kernels'
arguments, progress, sampling tables, weights, the corpus fingerprint and gensim's callbacks."""
