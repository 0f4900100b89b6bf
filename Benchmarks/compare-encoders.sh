#!/usr/bin/env bash
# texpipe's block encoders beside etcpak and bc7enc_rdo on the 150-texture corpus (see
# compare_encoders.py). Installs the PyPI wheels into a venv of its own (.build-bench/venv-encoders),
# builds texpipe in release mode, then runs the comparison; arguments go to compare_encoders.py.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-bench/venv-encoders
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy texture2ddecoder etcpak bc7enc-py
fi
swift build -c release --product texpipe >/dev/null
exec "$venv/bin/python" Benchmarks/compare_encoders.py "$@"
