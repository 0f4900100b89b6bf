#!/usr/bin/env bash
# texpipe's ASTC HDR (astcenc's library through its shim) beside the astcenc command line's -hdr
# on the same HDR images (see astc_hdr.py). Uses the block-encoder benchmarks' venv
# (.build-bench/venv-encoders) and texpipe built in release mode; arguments go to astc_hdr.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/encoders/encoders-venv.sh
exec taskset -c 0 "$venv/bin/python" Benchmarks/encoders/astc_hdr.py "$@"
