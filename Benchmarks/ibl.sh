#!/usr/bin/env bash
# Image-based lighting (cubemap, prefilter, irradiance) beside Filament's cmgen: see ibl.py.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cmgen >/dev/null || { echo "ibl.sh needs cmgen (apt-get install libfilament-tools)" >&2; exit 1; }
swift build -c release --product texpipe >/dev/null
exec python3 Benchmarks/ibl.py "$@"
