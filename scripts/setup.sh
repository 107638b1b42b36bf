#!/usr/bin/env bash
# Installs every Debian 12 package that scalewall's build, tests and benchmarks need.
# Run as root (or with sudo available). Skips apt-get entirely when all are present.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libfmt-dev libboost-math-dev libtomlplusplus-dev
  libgtest-dev libbenchmark-dev
  clang libclang-rt-14-dev
  gnuplot-nox chromium
  libopenmpi-dev openmpi-bin
  libsimgrid-dev simgrid
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present" >&2
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "error: installing ${missing[*]} needs root; run this script as root" >&2
    exit 1
  fi
fi
echo "setup: installing ${missing[*]}" >&2
"${as_root[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends \
  "${missing[@]}"
