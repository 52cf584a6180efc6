#!/usr/bin/env bash
# Codec benchmark, one command: bash bench/codecs/run.sh
# Installs what it needs if missing (Debian GDAL + numpy, + pyproj to write the Sentinel-2 data), makes
# bench/data/codecs/*.tif and bench/data/s2_B04.tif once, then runs
#   1. bench/codecs/bench.mts: GDAL, geotiff.js and the service decode level 0 of each file, single-threaded;
#   2. bench/codecs/s2.mts: one 1024² Sentinel-2 tile, the service's decode against GDAL's ReadBlock.
# Results: stdout, bench/out/codecs.md and .json, bench/out/codecs-s2.md and .json. Options (environment):
# see bench/codecs/README.md; BENCH_PART=table or BENCH_PART=s2 runs one part only.
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=/usr/bin/python3
PART=${BENCH_PART:-all}
if ! command -v gdalinfo >/dev/null || ! "$PY" -c 'import osgeo.gdal, numpy' 2>/dev/null; then
  echo "installing gdal-bin python3-gdal python3-numpy (bench-only dev tools)"
  apt-get update -qq && apt-get install -y -qq gdal-bin python3-gdal python3-numpy >/dev/null
fi
[ -d node_modules ] || npm ci --no-audit --no-fund

status=0
if [ "$PART" != s2 ]; then
  "$PY" bench/codecs/make-data.py
  # One thread: sharp's tiles go through libuv's pool, which gets a single thread; GDAL gets GDAL_NUM_THREADS=1.
  UV_THREADPOOL_SIZE=1 BENCH_PYTHON="$PY" node --import tsx bench/codecs/bench.mts || status=$?
fi
if [ "$PART" != table ]; then
  if [ ! -f bench/data/s2_B04.tif ]; then
    if ! "$PY" -c 'import pyproj' 2>/dev/null; then
      echo "installing python3-pyproj (bench-only dev tool, for bench/lib/s2_data.py)"
      apt-get update -qq && apt-get install -y -qq python3-pyproj >/dev/null
    fi
    "$PY" bench/lib/s2_data.py   # ~1.5 min the first time
  fi
  # libdeflate is the service's inflater where the native binding is built: build it if it is not.
  [ -f native/inflate/build/Release/zonal_inflate.node ] || node scripts/build-native.mjs
  cat bench/data/s2_B04.tif >/dev/null   # page cache (GDAL reads the tiles from the file)
  UV_THREADPOOL_SIZE=1 BENCH_PYTHON="$PY" node --import tsx bench/codecs/s2.mts || status=$?
fi
exit "$status"
