#!/usr/bin/env bash
# texpipe's block encoders beside etcpak and bc7enc_rdo on the 150-texture corpus (see
# compare_encoders.py). Installs the PyPI wheels into a venv of its own (.build-bench/venv-encoders),
# builds texpipe in release mode, then runs the comparison; arguments go to compare_encoders.py.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-bench/venv-encoders
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy==2.4.6 texture2ddecoder==1.0.6 etcpak==0.9.15 bc7enc-py==0.1.0a1
fi
swift build -c release --product texpipe >/dev/null
# One core for every encoder (etcpak otherwise spreads a call over threads of its own).
exec taskset -c 0 "$venv/bin/python" Benchmarks/compare_encoders.py "$@"
