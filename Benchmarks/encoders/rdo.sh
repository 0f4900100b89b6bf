#!/usr/bin/env bash
# Rate-distortion optimisation on the 150-texture corpus (see rdo.py): installs the PyPI wheels
# into the encoder comparison's venv (.build-bench/venv-encoders), builds texpipe in release mode,
# then runs rdo.py on one core; arguments go to rdo.py (--plot writes docs/img/rdo.png).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /usr/share/games/supertuxkart/data ] || { echo "rdo.sh needs supertuxkart-data (apt-get install supertuxkart-data)" >&2; exit 1; }
source Benchmarks/encoders/encoders-venv.sh
exec taskset -c 0 "$venv/bin/python" Benchmarks/encoders/rdo.py "$@"
