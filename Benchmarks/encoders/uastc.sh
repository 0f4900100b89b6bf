#!/usr/bin/env bash
# texpipe's UASTC encoder beside basisu's on the 150-texture corpus (see uastc.py): installs the
# PyPI wheels into the encoder comparison's venv (.build-bench/venv-encoders), builds texpipe in
# release mode, then runs uastc.py on one core; arguments go to uastc.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /usr/share/games/supertuxkart/data ] || { echo "uastc.sh needs supertuxkart-data (apt-get install supertuxkart-data)" >&2; exit 1; }
source Benchmarks/encoders/encoders-venv.sh
exec taskset -c 0 "$venv/bin/python" Benchmarks/encoders/uastc.py "$@"
