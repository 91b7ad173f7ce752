"""Files for TensorBoard's Embedding Projector: ``tensors.tsv``, ``metadata.tsv``, ``projector_config.pbtxt``.

``tensors.tsv`` holds one vector a line, values separated by tabs and
written as ``%.9g`` (float32 values read back exactly); ``metadata.tsv``
the word of each line, with its count when the vectors have counts (then
with a header line, as the projector wants for several columns);
``projector_config.pbtxt`` points TensorBoard at both (``tensorboard
--logdir DIR``).  The projector's "Load data" dialog takes the two TSV files
as they are.  Each file is written atomically.
"""
import os

import numpy as np

from ..util.checks import is_integer
from ..util.atomic import atomic_write, atomic_write_text
from ..errors import FormatError, OutputError, ParameterError

__all__ = ["export_projector", "FILES"]

FILES = ("tensors.tsv", "metadata.tsv", "projector_config.pbtxt")
BLOCK_ROWS = 4096   # rows formatted at a time


def export_projector(kv, directory, limit=None, tensor_name="w2v"):
    """Write ``kv``'s vectors and words for TensorBoard's Embedding Projector into ``directory``.

    Parameters
    ----------
    kv : KeyedVectors
    directory : str or os.PathLike
        Created, with its parents, if missing.
    limit : int, optional
        Only the first ``limit`` words (the most frequent).
    tensor_name : str
        The name the projector shows.

    Returns
    -------
    list of str
        The paths written.

    Raises
    ------
    FormatError
        A word holds a tab or a line break (a TSV line cannot hold it).
    OutputError
        ``directory`` cannot be made or written.
    ParameterError
        ``limit`` is not a positive integer.
    """
    if limit is not None and (not is_integer(limit) or limit < 1):
        raise ParameterError(f"limit must be a positive integer, got {limit!r}")
    n = len(kv) if limit is None else min(int(limit), len(kv))
    words = kv.index_to_key[:n]
    bad = next((w for w in words if "\t" in w or "\n" in w or "\r" in w), None)
    if bad is not None:
        raise FormatError(f"the word {bad!r} holds a tab or a line break: metadata.tsv cannot hold it")
    directory = os.fspath(directory)
    _make_directory(directory)
    paths = [os.path.join(directory, name) for name in FILES]
    with atomic_write(paths[0], "wb") as f:
        vectors = kv.vectors
        for start in range(0, n, BLOCK_ROWS):
            block = np.asarray(vectors[start:min(n, start + BLOCK_ROWS)], dtype=np.float32)
            f.write(("\n".join("\t".join(f"{v:.9g}" for v in row) for row in block.tolist()) + "\n").encode())
    counts = kv.counts
    if counts is not None:
        lines = ["word\tcount"] + [f"{w}\t{c}" for w, c in zip(words, counts[:n].tolist())]
    else:
        lines = list(words)
    atomic_write_text(paths[1], "\n".join(lines) + "\n")
    atomic_write_text(paths[2], "embeddings {\n"
                                f"  tensor_name: {_quoted(tensor_name)}\n"
                                '  tensor_path: "tensors.tsv"\n'
                                '  metadata_path: "metadata.tsv"\n'
                                "}\n")
    return paths


def _quoted(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _make_directory(directory):
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise OutputError(f"{directory}: exists and is not a directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot make the directory {directory}: {exc.strerror or exc}") from None
