#!/usr/bin/env bash
# Batch benchmark (many zones in one request), one command: bash bench/batch/run.sh
# Installs what it needs if missing (Debian GDAL + numpy + pyproj for the data and the floor, the project's
# node_modules, autocannon in bench/batch/node_modules), writes the Sentinel-2-layout COGs once when they are
# missing (bench/lib/s2_data.py, a few minutes the first time), the zones and the old Float32 COG (~15 s),
# reads the COGs once so they are in the page cache, then runs bench/batch/bench.ts (~2 min).
# Results: stdout, bench/out/batch-results.md and .json. Options (environment): see bench/batch/README.md
# (BENCH_OLD=0 skips the old Float32 file, the second row of the 1,000-zone table).
set -euo pipefail
cd "$(dirname "$0")/../.."

# PY and the GDAL/numpy/pyproj dev tools, installed when missing.
source bench/lib/dev-tools.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d bench/batch/node_modules/autocannon ] || (cd bench/batch && npm ci --no-audit --no-fund)

# s2_B04.tif is measured; s2_B08.tif (the same layout, another file) warms the service up without decoding a tile of B04.
if [ ! -f bench/data/s2_B04.tif ] || [ ! -f bench/data/s2_B08.tif ]; then "$PY" bench/lib/s2_data.py; fi
files=(bench/data/s2_B04.tif bench/data/s2_B08.tif)
if [ "${BENCH_OLD:-1}" != 0 ]; then
  "$PY" bench/batch/make-data.py
  files+=(bench/data/batch_10k.cog.tif)
else
  "$PY" bench/batch/make-data.py --no-old
fi
cat "${files[@]}" >/dev/null   # warm the page cache: every side reads the local files
BENCH_PYTHON="$PY" exec node --import tsx bench/batch/bench.ts
