"""Generate a large corpus: Zipf-distributed words plus a tail of unique strings, from a seed.

The corpus has ``--tokens`` whitespace tokens.  ``--unique`` of them are
strings that occur once each (junk: names, numbers, typos of web text,
spread uniformly through the corpus); the others are drawn from a
vocabulary of ``--zipf-words`` words with probability proportional to
``1 / rank ** --exponent``.  The number of distinct strings is the tail plus
the Zipf words drawn at least once; ``--distinct D`` sets the tail so that
the expected total is ``D`` (the exact count is printed at the end, on
stderr, with the counts' checksum).

Lines hold on average ``--line-tokens`` tokens (geometric lengths).
``--counts FILE`` writes the exact count of every Zipf word drawn and the
position of its first occurrence (token index), tab-separated: a reference
for the vocabulary of the corpus (a unique string occurs once).  The
output is the same for the same arguments and seed, whatever the machine:
each block of :data:`BLOCK_TOKENS` tokens is drawn from its own random
stream (:class:`numpy.random.SeedSequence` spawned from the seed).  Words
are formatted in NumPy and written in blocks of megabytes, to a file or to
stdout (``-o -``, to stream into ``w2v train -``).

Examples::

    python benchmarks/gen_corpus.py --tokens 20e6 --distinct 5e6 -o /tmp/c20m.txt
    python benchmarks/gen_corpus.py --tokens 1e9 --distinct 10e6 -o - | w2v train - -o v.bin
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

BLOCK_TOKENS = 1 << 22        # tokens drawn and written at a time (each block has its own random stream)
ZIPF_LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
UNIQUE_WIDTH = 9              # "x" and 8 hex digits: up to 2**32 unique strings
SCRAMBLE = 0x9E3779B1         # odd: i -> i * SCRAMBLE mod 2**32 is a bijection (unique strings look random)


def zipf_vocabulary(n_words):
    """The Zipf words: rank ``r`` is written in letters, shortest for the most frequent (2 letters for
    the first 650 ranks, then 3, ...), and never starts with ``x`` (as the unique strings do).

    Returns
    -------
    (table, lengths) : uint8[n_words, width], int64[n_words]
        Each word's bytes (zero-padded) and length.
    """
    first_letters = np.delete(ZIPF_LETTERS, 23)   # a..w, y, z
    groups = []                                   # (first rank, end, length): 25 * 26 ** (length - 1) each
    start, length = 0, 2
    while start < n_words:
        end = min(n_words, start + 25 * 26 ** (length - 1))
        groups.append((start, end, length))
        start, length = end, length + 1
    width = groups[-1][2] if groups else 2
    table = np.zeros((n_words, width), np.uint8)
    lengths = np.zeros(n_words, np.int64)
    for s, e, n in groups:
        value = np.arange(e - s, dtype=np.int64)
        for pos in range(n - 1, 0, -1):
            table[s:e, pos] = ZIPF_LETTERS[value % 26]
            value //= 26
        table[s:e, 0] = first_letters[value]
        lengths[s:e] = n
    return table, lengths


def zipf_cdf(n_words, exponent):
    weights = 1.0 / np.arange(1, n_words + 1, dtype=np.float64) ** exponent
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    return cdf


def expected_seen(cdf, draws):
    """Expected number of distinct Zipf words among ``draws`` draws."""
    p = np.diff(cdf, prepend=0.0)
    return float(np.sum(-np.expm1(draws * np.log1p(-np.minimum(p, 1 - 1e-16)))))


@njit(cache=True)
def format_block(ids, unique_values, ends, table, lengths, out):
    """Write one block's bytes into ``out``; return how many.  Token ``k`` is Zipf word ``ids[k]`` or, where
    ``ids[k] < 0``, the next unique string (``unique_values`` in order: ``x`` and 8 hex digits of a
    scrambled counter); each is followed by ``\\n`` where ``ends[k]``, else by a space."""
    n = 0
    u = 0
    for k in range(ids.size):
        w = ids[k]
        if w >= 0:
            for c in range(lengths[w]):
                out[n + c] = table[w, c]
            n += lengths[w]
        else:
            v = (np.uint64(unique_values[u]) * np.uint64(SCRAMBLE)) & np.uint64(0xFFFFFFFF)
            u += 1
            out[n] = 120   # "x"
            for d in range(8):
                out[n + 1 + d] = HEX[(v >> np.uint64(4 * (7 - d))) & np.uint64(15)]
            n += UNIQUE_WIDTH
        out[n] = 10 if ends[k] else 32
        n += 1
    return n


def alias_table(p):
    """Walker's alias table of the distribution ``p``: draw ``i`` uniformly, keep it with probability
    ``keep[i]``, else take ``alias[i]`` (two look-ups per draw, whatever the size)."""
    n = p.size
    scaled = p * n
    keep = np.ones(n, np.float64)
    alias = np.arange(n, dtype=np.int64)
    small = list(np.flatnonzero(scaled < 1.0))
    large = list(np.flatnonzero(scaled >= 1.0))
    while small and large:
        s, big = small.pop(), large.pop()
        keep[s] = scaled[s]
        alias[s] = big
        scaled[big] -= 1.0 - scaled[s]
        (small if scaled[big] < 1.0 else large).append(big)
    return keep, alias


def draw_zipf(rng, n, keep, alias):
    i = rng.integers(0, keep.size, n)
    return np.where(rng.random(n) < keep[i], i, alias[i])


def generate(out, tokens, unique, zipf_words, exponent, line_tokens, seed, first=None):
    """Write the corpus to the binary file ``out``; return ``(bytes, distinct, checksum, counts)``.

    ``first``, when given (int64, ``zipf_words``, all ``-1``), receives each Zipf word's first token index."""
    table, lengths = zipf_vocabulary(zipf_words)
    keep, alias = alias_table(np.diff(zipf_cdf(zipf_words, exponent), prepend=0.0))
    out_buf = np.empty(BLOCK_TOKENS * (max(UNIQUE_WIDTH, table.shape[1]) + 1), np.uint8)
    n_blocks = -(-tokens // BLOCK_TOKENS)
    streams = np.random.SeedSequence(seed).spawn(n_blocks)
    seen = np.zeros(zipf_words, np.int64)
    written = 0
    unique_done = 0
    for b in range(n_blocks):
        rng = np.random.default_rng(streams[b])
        first_token = b * BLOCK_TOKENS
        n = min(BLOCK_TOKENS, tokens - first_token)
        # the unique strings of this block: an exact share of the tail (the rounding carries over)
        u_end = (unique * (first_token + n)) // tokens
        n_unique = u_end - unique_done
        ids = draw_zipf(rng, n, keep, alias)
        pos = rng.choice(n, size=n_unique, replace=False) if n_unique else np.empty(0, np.int64)
        ids[pos] = -1
        ends = rng.random(n) < 1.0 / line_tokens
        if b == n_blocks - 1:
            ends[-1] = True
        values = np.arange(unique_done, u_end, dtype=np.int64)
        unique_done = u_end
        seen += np.bincount(ids[ids >= 0], minlength=zipf_words)
        if first is not None:
            words, at = np.unique(ids, return_index=True)
            new = (words >= 0) & (first[np.maximum(words, 0)] < 0)
            first[words[new]] = first_token + at[new]
        size = format_block(ids, values, ends, table, lengths, out_buf)
        out.write(memoryview(out_buf)[:size])
        written += size
    distinct = int(np.count_nonzero(seen)) + unique
    checksum = int(np.sum(seen * np.arange(1, zipf_words + 1, dtype=np.int64)) % (1 << 61))
    return written, distinct, checksum, seen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=float, required=True, help="tokens in all (1e9 is accepted)")
    ap.add_argument("--distinct", type=float, default=None,
                    help="expected distinct strings: sets --unique (the Zipf words drawn + the tail)")
    ap.add_argument("--unique", type=float, default=0, help="strings that occur once each (the tail)")
    ap.add_argument("--zipf-words", type=float, default=1e6, help="size of the Zipf vocabulary")
    ap.add_argument("--exponent", type=float, default=1.0, help="Zipf exponent s (p ~ 1 / rank ** s)")
    ap.add_argument("--line-tokens", type=float, default=100, help="mean tokens per line")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-", help="file to write, or - for stdout")
    ap.add_argument("--counts", default=None, metavar="FILE",
                    help="write each Zipf word drawn, its count and first token index (tab-separated)")
    args = ap.parse_args(argv)
    tokens = int(args.tokens)
    zipf_words = int(args.zipf_words)
    unique = int(args.unique)
    if tokens < 1 or zipf_words < 1 or args.line_tokens < 1:
        ap.error("--tokens, --zipf-words and --line-tokens must be >= 1")
    if args.distinct is not None:
        cdf = zipf_cdf(zipf_words, args.exponent)
        # solve distinct = seen(tokens - unique) + unique (seen barely moves with unique: two steps)
        for _ in range(3):
            unique = max(0, int(round(args.distinct - expected_seen(cdf, tokens - unique))))
    if unique > tokens or unique >= 1 << 32:
        ap.error(f"a tail of {unique:,} unique strings does not fit {tokens:,} tokens (or 2**32)")
    t0 = time.perf_counter()
    first = np.full(zipf_words, -1, np.int64) if args.counts else None
    run = (tokens, unique, zipf_words, args.exponent, args.line_tokens, args.seed, first)
    if args.output == "-":
        out = sys.stdout.buffer
        written, distinct, checksum, seen = generate(out, *run)
        out.flush()
    else:
        with open(args.output, "wb", buffering=1 << 22) as out:
            written, distinct, checksum, seen = generate(out, *run)
    if args.counts:
        table, lengths = zipf_vocabulary(zipf_words)
        drawn = np.flatnonzero(seen)
        with open(args.counts, "w", encoding="ascii") as f:
            for w in drawn.tolist():
                f.write(f"{table[w, :lengths[w]].tobytes().decode()}\t{seen[w]}\t{first[w]}\n")
    print(f"gen_corpus: {tokens:,} tokens, {distinct:,} distinct strings ({unique:,} unique), "
          f"{written:,} bytes in {time.perf_counter() - t0:.1f}s; zipf checksum {checksum}", file=sys.stderr)


if __name__ == "__main__":
    main()
