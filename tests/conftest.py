import lzma
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "data" / "corpus-small.txt.xz"
EVAL = ROOT / "data" / "eval"


def pytest_configure(config):
    # A command started with ``&`` from a non-interactive shell (a script, a CI runner) starts
    # with SIGINT ignored, and every process it starts inherits that: the Ctrl-C tests' children
    # would then never see their SIGINT. Python's own handler is reset to the default on exec,
    # so the children get a working Ctrl-C again.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory):
    """The first 3,000 lines (~160k words) of the bundled corpus, as plain text."""
    path = tmp_path_factory.mktemp("corpus") / "small.txt"
    with lzma.open(BUNDLED, "rt", encoding="utf-8") as src, open(path, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= 3000:
                break
            dst.write(line)
    return path
