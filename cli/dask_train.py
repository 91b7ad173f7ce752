"""``w2v train --scheduler ADDRESS`` / ``--dask-workers N``: training on a Dask cluster."""
import importlib
import logging

import click

from .common import say


def train_on_dask(model, corpus, scheduler, dask_workers, round_words, threads, quiet, on_epoch_end,
                  update_vocab=False, allow_binary=False):
    """Train ``model`` on ``corpus`` with Dask: an existing scheduler or a local cluster.

    Raises
    ------
    w2v.distributed.DistributedError
        dask is not installed, the scheduler cannot be reached or goes away
        (one line through the CLI's error handler).
    """
    from w2v.distributed import require_distributed   # start-up: loads Numba (+0.5 s)

    if scheduler and dask_workers:
        raise click.UsageError("give --scheduler or --dask-workers, not both")
    if update_vocab:
        raise click.UsageError("--update-vocab is not supported with --scheduler/--dask-workers")
    if getattr(model.settings, "device", "cpu") != "cpu":
        raise click.UsageError("--device cuda cannot be combined with --scheduler/--dask-workers")
    if dask_workers is not None and dask_workers < 1:
        raise click.BadParameter("must be >= 1", param_hint="--dask-workers")
    if round_words is not None and round_words < 1:
        raise click.BadParameter("must be >= 1", param_hint="--round-words")
    if "-" in corpus:
        raise click.UsageError("standard input cannot be used with --scheduler/--dask-workers: "
                               "pass files the workers can read")
    require_distributed()   # one-line error with the install hint before anything starts
    # dask logs each failed reconnection with a traceback; the command reports one line instead
    importlib.import_module("distributed")   # sets up its loggers, with levels per module
    names = ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
    levels = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL + 1)
    try:
        _train(model, corpus, scheduler, dask_workers, round_words, threads, quiet, on_epoch_end, allow_binary)
    finally:
        for n, level in levels.items():
            logging.getLogger(n).setLevel(level)


def _train(model, corpus, scheduler, dask_workers, round_words, threads, quiet, on_epoch_end, allow_binary):
    from w2v.distributed import DistributedError, dask_client   # start-up: loads Numba (+0.5 s)

    with dask_client(scheduler=scheduler, n_workers=dask_workers, threads_per_worker=threads or 1) as client:
        if not quiet:
            where = f"Dask scheduler {scheduler}" if scheduler else f"local Dask cluster ({dask_workers} workers)"
            say(f"training on the {where}")
        try:
            model.train(list(corpus), quiet=quiet, client=client, on_epoch_end=on_epoch_end,
                        round_words=round_words, allow_binary=allow_binary)
        except DistributedError as exc:
            state = model.run_state or {}
            done = state.get("epochs_done", 0)
            note = f"; {done} of {state.get('epochs', model.settings.epochs)} epochs were complete"
            if on_epoch_end is not None and done:
                note += " (saved in the --checkpoint directory: continue with --resume)"
            raise DistributedError(f"{exc}{note}") from None
