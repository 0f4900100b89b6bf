#!/usr/bin/env bash
# texpipe's UASTC encoder beside basisu's on the 150-texture corpus (see uastc.py): installs the
# PyPI wheels into the encoder comparison's venv (.build-bench/venv-encoders), builds texpipe in
# release mode, then runs uastc.py on one core; arguments go to uastc.py.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/share/games/supertuxkart/data ] || { echo "uastc.sh needs supertuxkart-data (apt-get install supertuxkart-data)" >&2; exit 1; }
venv=.build-bench/venv-encoders
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q numpy==2.4.6 texture2ddecoder==1.0.6 etcpak==0.9.15 bc7enc-py==0.1.0a1 \
  zstandard==0.25.0 alktx2==0.1.7 opengl-basisu==0.1.0a2
swift build -c release --product texpipe >/dev/null
exec taskset -c 0 "$venv/bin/python" Benchmarks/uastc.py "$@"
