"""The corpus a saved run records, and when ``w2v train --resume`` may read it again.

A model records the files of its run's corpus (``training.corpus_files``) with the size and
modification time each had (``training.corpus_file_stamps``, :func:`file_stamps`).  A model file
is untrusted input (docs/reliability.md, "Model files are untrusted input"): the paths it records
could name any file.  So a recorded corpus is read again only where the user names none, and only
if every recorded path is now a regular file of the recorded size and modification time
(:func:`recorded_corpus`), checked with ``stat`` before anything is opened: a named pipe, a
device, a folder or another file is never opened.  The resumed run then also checks that the words
read hash to the run's recorded fingerprint (``w2v train --resume`` refuses another corpus).
"""
import os
import stat

from ..errors import CorpusError

__all__ = ["file_stamps", "recorded_corpus"]

_PASS = "pass the corpus to train on"


def file_stamps(files):
    """``[size, modification time in ns]`` of each of ``files``, or None unless all are regular files.

    Parameters
    ----------
    files : sequence of str or None
        A corpus' files (absolute paths; ``"-"`` for standard input).

    Returns
    -------
    list of list of int or None
    """
    if not files or "-" in files:
        return None
    stamps = []
    for path in files:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        stamps.append([int(st.st_size), int(st.st_mtime_ns)])
    return stamps


def recorded_corpus(state, label):
    """The files of the corpus the run state ``state`` records, if they may be read again.

    Only ``os.stat`` touches the recorded paths: nothing is opened here.

    Parameters
    ----------
    state : dict
        A model's run state (checked by :func:`w2v.model.header.check_run_state`).
    label : str
        The model, for the messages.

    Returns
    -------
    tuple of str

    Raises
    ------
    CorpusError
        The model records no corpus that can be read again (standard
        input, sentences), records no sizes and times to check, or a
        recorded path is not now a regular file of the recorded size and
        modification time; the message names the path and says to pass the corpus.
    """
    files = (state or {}).get("corpus_files")
    if not files or "-" in files:
        raise CorpusError(f"{label}: the model records no re-readable corpus; {_PASS}")
    stamps = state.get("corpus_file_stamps")
    if stamps is None or len(stamps) != len(files):
        raise CorpusError(f"{label}: the model records the corpus {files[0]} but not the size and time of its "
                          f"files, so it cannot tell whether they are the run's; {_PASS}")
    for path, (size, mtime) in zip(files, stamps):
        try:
            st = os.stat(path)
        except (OSError, ValueError) as exc:
            raise CorpusError(f"{label}: the corpus it records, {path}, cannot be read "
                              f"({getattr(exc, 'strerror', None) or exc}); {_PASS}") from None
        if not stat.S_ISREG(st.st_mode):
            raise CorpusError(f"{label}: the corpus it records, {path}, is not a regular file; refused; {_PASS}")
        if (st.st_size, st.st_mtime_ns) != (size, mtime):
            raise CorpusError(f"{label}: the corpus it records, {path}, is not the file the run read (its size "
                              f"or modification time differs); {_PASS}")
    return tuple(files)
