#!/usr/bin/env bash
# Raster benchmark (issue 2), one command: bash bench/raster/run.sh
# Installs what it needs if missing (Debian GDAL + numpy for the data and the floor, geoblaze in
# bench/node_modules), makes bench/data/dem_10k.cog.tif once, then runs bench/raster/bench.ts.
# Results: stdout, bench/out/raster-results.md and .json. Options: see bench/raster/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=/usr/bin/python3
if ! command -v gdalinfo >/dev/null || ! "$PY" -c 'import osgeo.gdal, numpy' 2>/dev/null; then
  echo "installing gdal-bin python3-gdal python3-numpy (bench-only dev tools)"
  apt-get update -qq && apt-get install -y -qq gdal-bin python3-gdal python3-numpy >/dev/null
fi
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d bench/node_modules/geoblaze ] || (cd bench && npm ci --no-audit --no-fund)

"$PY" bench/raster/make-data.py
BENCH_PYTHON="$PY" exec node --import tsx bench/raster/bench.ts
