#!/usr/bin/env bash
# Installs the Debian packages ditto needs to build, test and run its examples, and any further
# packages named as arguments (bench/run-vs-libtorch.sh adds libtorch's), when they are missing.
set -euo pipefail
PKGS=(g++ cmake make libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libxxhash-dev libcli11-dev libopenmpi-dev openmpi-bin clang-format
  clang libclang-rt-14-dev
  python3-dev pybind11-dev libdlpack-dev python3-numpy python3-matplotlib python3-pytest python3-setuptools python3-venv python3-pip "$@")
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
