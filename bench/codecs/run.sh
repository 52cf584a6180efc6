#!/usr/bin/env bash
# Codec benchmark, one command: bash bench/codecs/run.sh
# Installs what it needs if missing (Debian GDAL + numpy), makes bench/data/codecs/*.tif once, then runs
# bench/codecs/bench.mts: GDAL, geotiff.js and the service decode level 0 of each file, single-threaded.
# Results: stdout, bench/out/codecs.md and .json. Options (environment): see bench/codecs/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=/usr/bin/python3
if ! command -v gdalinfo >/dev/null || ! "$PY" -c 'import osgeo.gdal, numpy' 2>/dev/null; then
  echo "installing gdal-bin python3-gdal python3-numpy (bench-only dev tools)"
  apt-get update -qq && apt-get install -y -qq gdal-bin python3-gdal python3-numpy >/dev/null
fi
[ -d node_modules ] || npm ci --no-audit --no-fund

"$PY" bench/codecs/make-data.py
# One thread: sharp's tiles go through libuv's pool, which gets a single thread; GDAL gets GDAL_NUM_THREADS=1.
UV_THREADPOOL_SIZE=1 BENCH_PYTHON="$PY" exec node --import tsx bench/codecs/bench.mts
