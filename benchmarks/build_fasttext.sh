#!/usr/bin/env bash
# Build the fastText command-line tool from the PyPI sdist of `fasttext-wheel`.
# The `fasttext-wheel` wheel only ships the Python module (no `fasttext` binary);
# its sdist carries the full C++ source including src/main.cc. Flags are those of
# upstream fastText's Makefile target `opt`: -pthread -std=c++11 -march=native -O3 -funroll-loops -DNDEBUG
#
# usage: benchmarks/build_fasttext.sh [DEST_DIR]   (default /work/bench-data/tools/bin)
set -euo pipefail
DEST=${1:-/work/bench-data/tools/bin}
VER=${FASTTEXT_WHEEL_VERSION:-0.9.2}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
pip download "fasttext-wheel==$VER" --no-binary :all: --no-deps -q -d . 2>&1 | grep -v '^WARNING' || true
tar xzf fasttext-wheel-"$VER".tar.gz
cd fasttext-wheel-"$VER"
mkdir -p "$DEST"
nice -n 19 g++ -pthread -std=c++11 -march=native -O3 -funroll-loops -DNDEBUG src/*.cc -o "$DEST/fasttext"
echo "built $DEST/fasttext"
