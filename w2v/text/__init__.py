"""Text in, ids out: the inputs of a corpus, the byte scan into tokens and provisional ids, iterables and
sentence readers, shards for Dask, the encoded id stream and the vocabulary."""
