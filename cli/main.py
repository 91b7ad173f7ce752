"""The ``w2v`` console script: a click group whose commands live in sibling modules."""
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

try:  # commands that use trained vectors (similar, analogy, eval, convert, info)
    from .vectors import register as _register_vector_commands  # noqa: E402
except ImportError:  # pragma: no cover - module not written yet
    _register_vector_commands = None
if _register_vector_commands is not None:
    _register_vector_commands(main)
from .plot import register as _register_plot_commands  # noqa: E402

_register_plot_commands(main)   # plot, plot-run, export


if __name__ == "__main__":  # pragma: no cover
    main()
