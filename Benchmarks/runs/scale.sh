#!/usr/bin/env bash
# CI at scale (issue 16): generates 20,000 sprites in 100 folders (our own generator, in
# scale.py) and times cold, no-op, --dry-run, validate, --verify and a rerun after changing 10
# inputs. Several binaries run side by side in one invocation (no-op and validate interleaved).
#   Benchmarks/runs/scale.sh                 this tree's release build beside a2399ec's (the reference
#                                       for planning speed, issue 51), built once from a fresh
#                                       clone into .build-bench/baseline-a2399ec
#   Benchmarks/runs/scale.sh BINARY...       those binaries
#   Benchmarks/runs/scale.sh --instructions [BINARY...]   also callgrind's instruction counts of the
#                                       no-op run and of validate (repeatable; times drift)
set -euo pipefail
cd "$(dirname "$0")/../.."
flags=()
if [ "${1:-}" = --instructions ]; then flags=(--instructions); shift; fi
if [ $# -eq 0 ]; then
  base=a2399ec
  dir=.build-bench/baseline-$base
  if [ ! -x "$dir/.build/release/texpipe" ]; then
    # A fresh clone: a copied .build would build this checkout's sources, not the baseline's.
    rm -rf "$dir"
    git clone -q . "$dir"
    git -C "$dir" checkout -q "$base"
    (cd "$dir" && swift build -c release --product texpipe >/dev/null)
  fi
  swift build -c release --product texpipe >/dev/null
  set -- "$dir/.build/release/texpipe" .build/release/texpipe
fi
exec python3 Benchmarks/runs/scale.py "${flags[@]}" "$@"
