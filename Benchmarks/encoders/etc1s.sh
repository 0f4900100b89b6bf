#!/usr/bin/env bash
# texpipe's ETC1S encoder beside basisu's on the 150-texture corpus (see etc1s.py): installs the
# PyPI wheels into the encoder comparison's venv (.build-bench/venv-encoders), builds texpipe in
# release mode, then runs etc1s.py (basisu on one core; texpipe's one-core rows pinned to core 0);
# arguments go to etc1s.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /usr/share/games/supertuxkart/data ] || { echo "etc1s.sh needs supertuxkart-data (apt-get install supertuxkart-data)" >&2; exit 1; }
source Benchmarks/encoders/encoders-venv.sh
exec "$venv/bin/python" Benchmarks/encoders/etc1s.py "$@"
