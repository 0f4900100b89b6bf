#!/usr/bin/env bash
# Volumes and LUTs (issue #54, see volume.py): a 64³ .cube LUT into an rgba16f KTX2, and a
# 256×256×256 noise volume (256 PNG slices) with its whole chain into an rgba8 KTX2 on two cores,
# its peak memory beside the decoded volume. texpipe built in release mode; arguments go to volume.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product texpipe >/dev/null
exec python3 Benchmarks/runs/volume.py "$@"
