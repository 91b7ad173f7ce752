"""What the tests share and pytest does not collect: references, cases, child-process runners, usage scripts.

The name says the role: this package supports the tests and holds none (no ``test_*.py`` here,
``tests/test_suite.py`` checks it), so it cannot be mistaken for the tests of a ``w2v`` package
the way ``tests/<package>/`` folders are.

- ``reference``: a plain NumPy training step with the kernels' random draws.
- ``cuda_cases`` and ``cuda_sim_runner``: the CUDA kernel checks on Numba's CUDA simulator, run in
  a child process (``python -m tests.support.cuda_sim_runner``), and their NumPy references.
- ``formats_cases``: vectors, raw word2vec files and the CLI runner of the format tests.
- ``model_loads``: loads model directories in a child process (``python -m tests.support.model_loads``),
  timed and memory-capped.
- ``plot_cases``: clustered vectors and a native model for the picture tests.
- ``gensim_usage``, ``gensim_usage_phrases`` and ``gensim_usage_vectors``: code written for gensim, run
  as scripts on gensim and on w2v with only the import changed.
"""
