#!/usr/bin/env bash
# exactextract's CLI as an oracle for the exactextract operations (issue 24). Dev tool: the test suite
# never needs it.
#   bash tools/oracle/exactextract_oracle.sh           # rewrites fixtures/exactextract/oracle/
#   bash tools/oracle/exactextract_oracle.sh --ported  # also rewrites fixtures/exactextract/ported* and
#                                                      # runs every ported case through the CLI
# Needs root / apt for the Debian packages. Builds the CLI when `exactextract` is not on the PATH, from an
# isciences/exactextract git directory (EXACTEXTRACT_GIT_DIR, by default the `fetch` mirror), exactly as
# /work/shared/ANCHORS.md ("exactextract, offline") says: Debian's CLI11 instead of the download.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
git_dir="${EXACTEXTRACT_GIT_DIR:-/work/.mirror/isciences+exactextract/repo}"

if ! /usr/bin/python3 -c 'import numpy; from osgeo import gdal' >/dev/null 2>&1; then
  echo "installing gdal-bin python3-gdal python3-numpy (apt-get)…" >&2
  apt-get install -y gdal-bin python3-gdal python3-numpy >&2
fi

if ! command -v exactextract >/dev/null 2>&1; then
  echo "building exactextract from $git_dir…" >&2
  apt-get install -y cmake g++ libgdal-dev libgeos-dev libcli11-dev >&2
  src="$(mktemp -d)"
  git --git-dir="$git_dir" archive HEAD | tar -x -C "$src"
  mkdir -p "$src/build/CLI11"
  printf '#pragma once\n#include <CLI/CLI.hpp>\n' > "$src/build/CLI11/CLI11.hpp"
  (cd "$src/build" &&
    cmake .. -DCMAKE_BUILD_TYPE=Release -DBUILD_CLI=ON -DBUILD_TEST=OFF -DBUILD_DOC=OFF -DBUILD_PYTHON=OFF >&2 &&
    make -j2 >&2 && cp exactextract /usr/local/bin/)
fi

if [ -z "${EXACTEXTRACT_COMMIT:-}" ] && [ -d "$git_dir" ]; then
  EXACTEXTRACT_COMMIT="$(git --git-dir="$git_dir" rev-parse HEAD)"
  export EXACTEXTRACT_COMMIT
fi
exactextract --version >&2

/usr/bin/python3 "$here/exactextract_oracle.py"
if [ "${1:-}" = "--ported" ]; then
  /usr/bin/python3 "$root/tools/fixtures/make_exactextract_ported.py" --check
fi
