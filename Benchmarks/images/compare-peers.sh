#!/usr/bin/env bash
# Times texpipe, ImageMagick, libvips and the libpng codec floor on the same corpus of real
# RGBA textures (from SuperTuxKart's data), whole process, median of REPEAT runs (default 5),
# one core and all cores, and prints the markdown table that goes into the README.
#   Benchmarks/images/compare-peers.sh            REPEAT=3 Benchmarks/images/compare-peers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
command -v convert >/dev/null 2>&1 || need+=(imagemagick)
command -v vips >/dev/null 2>&1 || need+=(libvips-tools)
[ -d /usr/share/games/supertuxkart/data ] || need+=(supertuxkart-data)
[ -x /usr/bin/time ] || need+=(time)
if ((${#need[@]})); then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
Scripts/setup
swift build -c release --product texpipe >&2
mkdir -p .build-bench
cc -O2 -o .build-bench/png_floor Benchmarks/images/floor/png_floor.c $(pkg-config --cflags --libs libpng)
exec python3 Benchmarks/images/compare_peers.py
