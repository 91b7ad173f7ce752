"""Vector files as plain data: words, a float32 matrix, counts and settings.

Formats
-------
word2vec binary and text (:mod:`w2v.formats.word2vec`)
    word2vec.c's ``-binary 1`` output and its text format (fastText ``.vec``
    files included), optionally compressed (gzip, bzip2, xz); read by
    ``word2vec_stream`` (header, detection), ``word2vec_binary`` and
    ``word2vec_text``.
native (:mod:`w2v.formats.native`)
    ``vectors.npy`` (memory-mappable), ``vocab.tsv`` (``word<TAB>count``
    per line, in row order) and ``meta.json``, as the files of a directory
    or the members of one file (an aligned, uncompressed zip archive:
    :mod:`w2v.formats.archive`); they are read and written with the checks
    of :mod:`w2v.formats.files` (:mod:`w2v.formats.members`).

The readers return plain data (:class:`Word2VecVectors`,
:class:`NativeVectors`) and the writers take it; :mod:`w2v.vectors.keyed` builds
and takes :class:`~w2v.vectors.keyed.KeyedVectors` with them (``w2v.load``,
``w2v.save``).  Every writer is atomic, and corrupt, truncated or foreign
files raise :class:`~w2v.errors.FormatError` naming the file and the line
number or byte offset of the problem.
"""
import os

from .archive import is_archive
from .files import (MAX_JSON_BYTES, MAX_JSON_DEPTH, check_utf8, decode_utf8, encode_json, json_default, load_npy,
                    open_model_file, read_array, read_json, read_model_file, refuse_pickle, write_array)
from .native import (ASIDE_SUFFIX, NATIVE_FORMAT, NATIVE_VERSION, SINGLE_FILE_SUFFIX, TEMP_SUFFIX, NativeVectors,
                     aside_dirs, check_model_target, inspect_native, is_model_file, is_native_dir, locate_model,
                     open_model, read_native, read_native_members, temp_dirs, write_native, writes_single_file)
from .word2vec import (FLOAT_TYPES, Word2VecVectors, check_datatype, check_encoding, check_limit,
                       check_unicode_errors, inspect_word2vec, read_vocab_counts, read_word2vec, write_vocab_counts,
                       write_word2vec)

__all__ = ["ASIDE_SUFFIX", "FLOAT_TYPES", "MAX_JSON_BYTES", "MAX_JSON_DEPTH", "NATIVE_FORMAT", "NATIVE_VERSION",
           "SINGLE_FILE_SUFFIX", "TEMP_SUFFIX", "NativeVectors", "Word2VecVectors", "aside_dirs", "check_datatype",
           "check_encoding", "check_limit", "check_model_target", "check_unicode_errors", "check_utf8", "decode_utf8",
           "encode_json", "inspect", "inspect_native", "inspect_word2vec", "is_archive", "is_model_file",
           "is_native_dir", "json_default", "load_npy", "locate_model", "open_model", "open_model_file", "read_array",
           "read_json", "read_model_file", "read_native", "read_native_members", "read_vocab_counts", "read_word2vec",
           "refuse_pickle", "temp_dirs", "write_array", "write_native", "write_vocab_counts", "write_word2vec",
           "writes_single_file"]


def inspect(path):
    """Describe a vector file or native model without loading all of it.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    dict
        ``format`` (``'native'``, ``'word2vec-binary'`` or
        ``'word2vec-text'``), ``count``, ``dim``, ``settings`` (dict, empty
        when unknown), ``compression`` (None, ``'gzip'``, ``'bz2'``,
        ``'xz'``, ``'lzma'``), ``has_counts`` (word counts stored: native
        only) and ``path``; a native model adds ``single_file`` (saved as
        one file) and ``full_model`` (a full model's ``model.json``, else
        None).  For word2vec files ``count`` is the header's;
        an uncompressed one smaller than its header's count and dim need is
        reported as truncated (only :func:`w2v.load` checks every record).  A
        native model's files are checked as :func:`read_native` does, except
        that the values of the vectors are not scanned for NaN/infinity.  A
        missing directory that an interrupted save left a complete copy of
        is described from that copy (see :func:`locate_model`).

    Raises
    ------
    FormatError
        Not a readable vector file.
    FileNotFoundError
        ``path`` does not exist (nor a copy of it).
    """
    path = os.fspath(path)
    if os.path.isdir(path) or not os.path.lexists(path) or is_archive(path):
        return inspect_native(path)
    refuse_pickle(path)
    return inspect_word2vec(path)
