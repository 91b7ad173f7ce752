"""The ``w2v`` console script: a click group whose commands live in sibling modules."""
import atexit
import gc

import click

from w2v import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="w2v")
def main():
    """w2v: train and use word2vec embeddings (Numba kernels)."""


from .train import train  # noqa: E402

main.add_command(train)
from .devices import devices  # noqa: E402
main.add_command(devices)
from .phrases import phrases  # noqa: E402
main.add_command(phrases)

from .vectors import register as _register_vector_commands  # noqa: E402

_register_vector_commands(main)   # similar, analogy, eval, convert, info
from .plot import register as _register_plot_commands  # noqa: E402

_register_plot_commands(main)   # plot, plot-run, export


# The interpreter's last garbage collection at exit walks Numba's ~110,000 objects: 0.2 s on every
# command.  Frozen objects are left to the OS; atexit handlers and module teardown still run.
atexit.register(gc.freeze)

if __name__ == "__main__":  # pragma: no cover
    main()
