#!/usr/bin/env bash
# Batch benchmark (many zones in one request), one command: bash bench/batch/run.sh
# Installs what it needs if missing (Debian GDAL + numpy for the data and the floor, the project's
# node_modules, autocannon in bench/batch/node_modules), writes the data under bench/data/ once (~10 s),
# reads the COG once so it is in the page cache, then runs bench/batch/bench.ts (~3 min).
# Results: stdout, bench/out/batch-results.md and .json. Options (environment): see bench/batch/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=/usr/bin/python3
if ! command -v gdalinfo >/dev/null || ! "$PY" -c 'import osgeo.gdal, numpy' 2>/dev/null; then
  echo "installing gdal-bin python3-gdal python3-numpy (bench-only dev tools)"
  apt-get update -qq && apt-get install -y -qq gdal-bin python3-gdal python3-numpy >/dev/null
fi
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d bench/batch/node_modules/autocannon ] || (cd bench/batch && npm ci --no-audit --no-fund)

"$PY" bench/batch/make-data.py
cat bench/data/batch_10k.cog.tif >/dev/null   # warm the page cache: every side reads the local file
BENCH_PYTHON="$PY" exec node --import tsx bench/batch/bench.ts
