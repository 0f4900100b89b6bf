#!/usr/bin/env bash
# texpipe's BC6H encoder beside ISPC Texture Compressor's on HDR images (see bc6h.py). Uses the
# block-encoder benchmarks' venv (.build-bench/venv-encoders) and texpipe built in release mode;
# arguments go to bc6h.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/encoders/encoders-venv.sh
exec taskset -c 0 "$venv/bin/python" Benchmarks/encoders/bc6h.py "$@"
