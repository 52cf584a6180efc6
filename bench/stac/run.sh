#!/usr/bin/env bash
# Zones × time benchmark, one command: bash bench/stac/run.sh (see bench/stac/README.md).
# Installs GDAL + numpy + pyproj if missing, writes the data under bench/data/ once (~40 s for the Sentinel-2
# layout, ~20 s for the old data), reads it into the page cache, then runs bench/stac/bench.ts (~4 min).
# Results: stdout and bench/out/stac-results.md. Knobs: see bench/stac/README.md (BENCH_OLD=0 skips the old data).
set -euo pipefail
cd "$(dirname "$0")/../.."
# PY and the GDAL/numpy/pyproj dev tools, installed when missing.
source bench/lib/dev-tools.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
"$PY" bench/lib/s2_data.py
files=(bench/data/s2_B04.tif bench/data/s2_B08.tif bench/data/s2_SCL.tif)
if [ "${BENCH_OLD:-1}" != 0 ]; then
  "$PY" bench/stac/make-data.py
  files+=(bench/data/stac_B04.tif bench/data/stac_B08.tif bench/data/stac_SCL.tif)
fi
cat "${files[@]}" >/dev/null   # page cache
exec node --import tsx bench/stac/bench.ts
