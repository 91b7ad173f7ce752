#!/usr/bin/env python3
"""text8-style normalization (Mahoney's wikifil.pl rule plus accent folding).

Reads UTF-8 text on stdin and writes the normalized text on stdout. The rule is
exactly the one in /work/shared/data/README.md (the rule that produced
``corpus-small-text8``):

* NFKD, then drop combining marks (``é`` -> ``e``);
* lowercase; every digit is spelled out on its own (``1984`` -> ``one nine eight four``);
* every run of characters other than ``a-z`` becomes one space; strip.

By default there is one output line per input line and lines that come out
empty are dropped (identical to the README script).

Options:
  --single-line     join everything into ONE line, words separated by single
                    spaces (like the original text8, i.e. ``tr '\\n' ' '`` of the
                    default output); a final newline is written unless
                    --no-final-newline is given.
  --max-tokens N    stop after N output tokens (whitespace tokens); the last
                    line is cut at a word boundary.

Examples:
  xzcat corpus-wiki-1.txt.xz corpus-wiki-2.txt.xz \\
      | python3 benchmarks/text8_normalize.py --single-line > wiki69m.txt
  python3 benchmarks/text8_normalize.py --single-line --max-tokens 17000000 \\
      < wiki69m.txt > wiki17m.txt      # (already normalized text is a fixed point)
"""
import argparse
import io
import re
import sys
import unicodedata

DIG = {'0': ' zero ', '1': ' one ', '2': ' two ', '3': ' three ', '4': ' four ',
       '5': ' five ', '6': ' six ', '7': ' seven ', '8': ' eight ', '9': ' nine '}
TR, NON = str.maketrans(DIG), re.compile(r'[^a-z]+')


def text8(line: str) -> str:
    s = unicodedata.normalize('NFKD', line)                     # é -> e + combining mark
    s = ''.join(c for c in s if not unicodedata.combining(c))   # drop the combining marks
    s = s.lower().translate(TR)                                 # digits spelled out one by one
    return NON.sub(' ', s).strip()                              # every other character -> one space


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--single-line', action='store_true',
                    help='write everything as one space-separated line (like text8)')
    ap.add_argument('--no-final-newline', action='store_true',
                    help='with --single-line: do not end the output with a newline')
    ap.add_argument('--max-tokens', type=int, default=None, metavar='N',
                    help='stop after N output tokens')
    args = ap.parse_args(argv)

    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', errors='strict', newline=None)
    out = io.TextIOWrapper(sys.stdout.buffer, encoding='ascii', newline='\n',
                           write_through=False)
    remaining = args.max_tokens
    first = True
    try:
        for line in stdin:
            t = text8(line)
            if not t:
                continue
            if remaining is not None:
                toks = t.split(' ')
                if len(toks) >= remaining:
                    t = ' '.join(toks[:remaining])
                    remaining = 0
                else:
                    remaining -= len(toks)
            if args.single_line:
                if not first:
                    out.write(' ')
                out.write(t)
            else:
                out.write(t)
                out.write('\n')
            first = False
            if remaining == 0:
                break
        if args.single_line and not args.no_final_newline and not first:
            out.write('\n')
        out.flush()
    except BrokenPipeError:
        try:
            sys.stdout = None
        except Exception:
            pass
        return 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
