"""A longer fuzzing run of every protocol/ decoder (the CI test runs 2,000 per decoder,
18,000 in all).

    .venv/bin/python bench/fuzz_protocol.py [--examples 200000] [--seed N]

Same strategy as tests/unit/protocol/test_fuzz.py (random bytes and mutations of valid
messages of every kind); any exception other than ProtocolError fails the run. Prints the
seed, the examples per decoder and the time taken.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=200_000, help="per decoder")
    ap.add_argument("--seed", type=int, default=random.randrange(2**32))
    args = ap.parse_args()
    env = dict(os.environ, RACKWISE_FUZZ_SEED=str(args.seed),
               RACKWISE_FUZZ_EXAMPLES=str(args.examples))
    print(f"seed={args.seed} examples per decoder={args.examples}", flush=True)
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/unit/protocol/test_fuzz.py", "-k", "return_or_raise"],
        cwd=ROOT, env=env)
    elapsed = time.monotonic() - start
    decoders = 9
    total = decoders * args.examples
    print(f"{total:,} examples over {decoders} decoders in {elapsed:.0f} s "
          f"({total / elapsed:,.0f}/s); exit {proc.returncode}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
