"""A Dask cluster of Linux network namespaces on one machine, with links capped by ``tc``.

``benchmarks/bench_cluster.py`` runs ``w2v train --scheduler`` on it and fits the scaling model;
``docs/distributed.md`` ("A cluster of network namespaces") describes what it builds and measures.

Modules, by concept:

* :mod:`netcluster.links`     a link's cap (rate, delay) and the ``tc`` commands that set it;
* :mod:`netcluster.network`   namespaces joined to a bridge by veth pairs, their byte counters, the sweep
                               of what a killed run left;
* :mod:`netcluster.processes` process groups started in a namespace and stopped within a bound;
* :mod:`netcluster.cluster`   ``dask scheduler``, ``dask worker`` and the ``w2v train`` driver on that network;
* :mod:`netcluster.rounds`    the per-round figures of a ``--report-json`` report, and the link bytes of each round;
* :mod:`netcluster.model`     the round-time model fitted to the runs, its predictions and regimes.
"""
