#!/usr/bin/env bash
# CI at scale (issue 16): generates 20,000 sprites in 100 folders (our own generator, in
# scale.py) and times cold, no-op, --dry-run, validate, --verify and a rerun after changing 10
# inputs. Pass several binaries to compare them side by side in one run.
#   Benchmarks/scale.sh [BINARY...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { swift build -c release --product texpipe >/dev/null; set -- .build/release/texpipe; }
exec python3 Benchmarks/scale.py "$@"
