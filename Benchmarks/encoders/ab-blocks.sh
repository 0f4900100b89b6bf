#!/usr/bin/env bash
# One block encoder, two builds, alternating A B A B on the corpus (see ab_blocks.py): a before/after
# of an encoder change. Uses the encoders' venv (.build-bench/venv-encoders) for the decoder and
# scoring; arguments go to ab_blocks.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/encoders/encoders-venv.sh
exec "$venv/bin/python" Benchmarks/encoders/ab_blocks.py "$@"
