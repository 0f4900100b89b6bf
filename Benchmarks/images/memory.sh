#!/usr/bin/env bash
# Peak memory per operation (docs/performance.md "Memory"): color-key, premultiply, flip + adjust,
# rotate, composite, mipmaps and mipmaps with coverage (→ BC7 KTX2) at 4096² and 16384², on noise
# and on a real texture, --jobs 1 and 2, beside the SPEC's bounds and libvips' peak for the same
# operation. Prints the markdown table that goes into the docs.
#   Benchmarks/images/memory.sh               SIZES=4096 JOBS=1 Benchmarks/images/memory.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
command -v vips >/dev/null 2>&1 || need+=(libvips-tools)
[ -d /usr/share/games/supertuxkart/data ] || need+=(supertuxkart-data)
[ -x /usr/bin/time ] || need+=(time)
if ((${#need[@]})); then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
swift build -c release --product texpipe >&2
exec python3 Benchmarks/images/memory.py
