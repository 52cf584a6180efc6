#!/usr/bin/env bash
# Cube benchmark (issue 25: POST /api/v1/zonal-stats/cube), one command:
#   bash bench/cube/run.sh
# Installs what it needs if missing (Debian's python3-xarray, python3-zarr, python3-numcodecs, python3-shapely,
# python3-scipy and numpy for the data and the anchor; the project's node_modules), writes the regional ERA5-like
# Zarr store and the 100 districts once when they are missing (bench/cube/make-data.py, ~2.5 min, 850 MB under
# bench/data/cube/), builds dist/ when it is stale, reads the store once so that it is in the page cache, then runs
# bench/cube/bench.mts (~3 runs of the service over 20 ms and the anchor on local files, then the peak RSS against
# the number of steps). Results: stdout, bench/out/cube-results.md and .json.
# Options (environment): see bench/cube/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

# PY and the GDAL/numpy/pyproj dev tools, installed when missing.
source bench/lib/dev-tools.sh
if ! "$PY" -c 'import xarray, zarr, numcodecs, shapely, scipy, pandas' 2>/dev/null; then
  echo "installing python3-xarray python3-zarr python3-numcodecs python3-shapely python3-scipy python3-pandas (bench-only dev tools)"
  apt-get update -qq && apt-get install -y -qq python3-xarray python3-zarr python3-numcodecs python3-shapely python3-scipy python3-pandas >/dev/null
fi
# curl sends the request (bench.mts post: a client as light as a user's).
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
[ -d node_modules ] || npm ci --no-audit --no-fund

if [ ! -f bench/data/cube/era5_t2m.zarr/.zmetadata ] || [ ! -f bench/data/cube/districts.geojson ]; then
  "$PY" bench/cube/make-data.py
fi
if [ "${BENCH_CUBE_V3:-0}" = 1 ] && [ ! -f bench/data/cube/era5_t2m_v3.zarr/t2m/zarr.json ]; then
  "$PY" bench/cube/make-v3.py   # the same chunk files as Zarr v3, for the service (BENCH_CUBE_V3=1)
fi
node scripts/build.mjs --if-stale   # the service runs as npm start runs it: node dist/server.js
find bench/data/cube -type f -exec cat {} + >/dev/null   # warm the page cache (both sides read the same files)
exec npx tsx bench/cube/bench.mts
