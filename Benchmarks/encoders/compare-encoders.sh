#!/usr/bin/env bash
# texpipe's block encoders beside etcpak and bc7enc_rdo on the 150-texture corpus (see
# compare_encoders.py). Installs the PyPI wheels into a venv of its own (.build-bench/venv-encoders),
# builds texpipe in release mode, then runs the comparison; arguments go to compare_encoders.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/encoders/encoders-venv.sh
# One core for every encoder (etcpak otherwise spreads a call over threads of its own).
exec taskset -c 0 "$venv/bin/python" Benchmarks/encoders/compare_encoders.py "$@"
