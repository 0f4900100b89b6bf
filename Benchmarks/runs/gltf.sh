#!/usr/bin/env bash
# glTF models (see gltf.py): texpipe's gltf pipeline against basisu (alktx2) encoding the same
# textures one by one at the same settings, the work glTF-Transform hands to toktx. Installs the
# PyPI wheels into the encoder comparison's venv, builds texpipe in release mode; arguments go to
# gltf.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /usr/share/games/supertuxkart/data ] || { echo "gltf.sh needs supertuxkart-data (apt-get install supertuxkart-data)" >&2; exit 1; }
source Benchmarks/encoders/encoders-venv.sh
exec "$venv/bin/python" Benchmarks/runs/gltf.py "$@"
