# Sourced by the block-encoder benchmarks (compare-encoders.sh, rdo.sh, uastc.sh), from the
# repository's root: the venv they share (.build-bench/venv-encoders, left in $venv) with every
# pinned wheel they use, and texpipe built in release mode.
venv=.build-bench/venv-encoders
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q numpy==2.4.6 texture2ddecoder==1.0.6 etcpak==0.9.15 bc7enc-py==0.1.0a1 \
  zstandard==0.25.0 matplotlib==3.11.2 alktx2==0.1.7 opengl-basisu==0.1.0a2 ispc-texcomp==1.0.1 openexr==3.3.2
# The fastest build this machine runs, as the README's commands build it (Scripts/cpu-flags).
source Scripts/cpu-flags
swift build -c release "${cpu[@]}" --product texpipe >/dev/null
