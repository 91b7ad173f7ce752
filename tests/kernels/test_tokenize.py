"""The byte tokenizer's split (:func:`w2v.kernels.tokenize.split_tokens`) against a plain Python reference."""
import numpy as np
import pytest

from w2v.kernels.tokenize import TokenItems, bytes_hash

# every whitespace str.isspace() accepts, as UTF-8
SPACES = [chr(c).encode() for c in (9, 10, 11, 12, 13, 28, 29, 30, 31, 32)] + [
    "\u0085".encode(), "\u00a0".encode(), "\u1680".encode(), *[chr(c).encode() for c in range(0x2000, 0x200B)],
    "\u2028".encode(), "\u2029".encode(), "\u202f".encode(), "\u205f".encode(), "\u3000".encode()]
# token bytes that the word-at-a-time scan flags and must let through: controls below 0x21, '!'
# (0x21, flagged by a borrow), lead bytes of non-spaces, and invalid bytes
PIECES = [b"a", b"xyz", b"longerword", b"\x00", b"\x1b", b"!", b"\xc3\xa9", b"\xe2\x80\x94", b"\xe1\x9a\x81",
          b"\xe3\x80\x81", b"\xc2\xa1", b"\xff", b"\xe2", b"\xc2", b"\xe2\x80"]


def reference_split(data):
    """``(start, length)`` per token and ``(position, -1)`` per newline, found one byte at a time."""
    items, i, start = [], 0, None
    while i < len(data):
        space = next((s for s in SPACES if data.startswith(s, i)), None)
        if space is None:
            start = i if start is None else start
            i += 1
            continue
        if start is not None:
            items.append((start, i - start))
            start = None
        if space == b"\n":
            items.append((i, -1))
        i += len(space)
    if start is not None:
        items.append((start, len(data) - start))
    return items


def kernel_split(data, final=True):
    buf = np.frombuffer(data, np.uint8)
    items = TokenItems()
    consumed, n = items.split(buf, buf.size, final)
    got = list(zip(items.starts[:n].tolist(), items.lens[:n].tolist()))
    for (start, length), h in zip(got, items.hashes[:n].tolist()):
        if length >= 0:
            assert h == bytes_hash(buf, start, length)
    return consumed, got


@pytest.mark.parametrize("seed", range(6))
def test_split_is_the_references_at_every_cut(seed):
    rng = np.random.default_rng(seed)
    data = b"".join(PIECES[i] if rng.random() < 0.6 else SPACES[rng.integers(len(SPACES))]
                    for i in rng.integers(0, len(PIECES), 120))
    want = reference_split(data)
    assert kernel_split(data)[1] == want
    for cut in range(len(data) + 1):
        # a buffer that is not the end stops before what may go on; the rest, read on, completes it
        consumed, first = kernel_split(data[:cut], final=False)
        assert consumed <= cut
        _, rest = kernel_split(data[consumed:])
        assert first + [(s + consumed, n) for s, n in rest] == want


def test_the_hash_is_the_same_for_the_same_bytes_anywhere():
    data = b"sixteen-byte-tok x sixteen-byte-tok\nsixteen-byte-tok"
    buf = np.frombuffer(data, np.uint8)
    items = TokenItems()
    _, n = items.split(buf, buf.size, True)
    hashes = {data[s:s + k]: set() for s, k in zip(items.starts[:n], items.lens[:n]) if k >= 0}
    for s, k, h in zip(items.starts[:n], items.lens[:n], items.hashes[:n]):
        if k >= 0:
            hashes[data[s:s + k]].add(int(h))
    assert all(len(v) == 1 for v in hashes.values()) and len(set.union(*hashes.values())) == 2


def test_same_bytes_is_numpys_comparison_at_any_offset_and_length():
    from w2v.kernels.tokenize import same_bytes
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 64).astype(np.uint8)     # few values: long equal runs
    b = rng.integers(0, 3, 40).astype(np.uint8)
    for _ in range(5000):
        length = int(rng.integers(0, 25))
        i, j = int(rng.integers(0, a.size - length + 1)), int(rng.integers(0, b.size - length + 1))
        assert same_bytes(a, i, b, j, length) == np.array_equal(a[i:i + length], b[j:j + length])
    c = a.copy()
    for length in range(0, 33):                      # equal runs up to the arrays' ends
        assert same_bytes(a, a.size - length, c, c.size - length, length)
