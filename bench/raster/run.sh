#!/usr/bin/env bash
# Raster benchmark (issues 2, 10, 21), one command: bash bench/raster/run.sh
# Installs what it needs if missing (Debian GDAL + numpy + pyproj for the data and the floor, geoblaze in
# bench/node_modules when BENCH_SIDES includes it), writes the Sentinel-2-layout COG when it is missing
# (bench/lib/s2_data.py, a few minutes the first time) and the old Float32 COG once (make-data.py, ~10 s),
# reads them once into the page cache, then runs bench/raster/bench.ts.
# Results: stdout, bench/out/raster-results.md and .json. Options: see bench/raster/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

# PY and the GDAL/numpy/pyproj dev tools, installed when missing.
source bench/lib/dev-tools.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
case ",${BENCH_SIDES:-service,gdal,geoblaze}," in
  *,geoblaze,*) [ -d bench/node_modules/geoblaze ] || (cd bench && npm ci --no-audit --no-fund) ;;
esac

files=()
case ",${BENCH_DATASETS:-s2,dem}," in
  *,s2,*) [ -f bench/data/s2_B04.tif ] || "$PY" bench/lib/s2_data.py; files+=(bench/data/s2_B04.tif) ;;
esac
case ",${BENCH_DATASETS:-s2,dem}," in
  *,dem,*) "$PY" bench/raster/make-data.py; files+=(bench/data/dem_10k.cog.tif) ;;
esac
cat "${files[@]}" >/dev/null   # page cache: the range server and the local-file sides read these
BENCH_PYTHON="$PY" exec node --import tsx bench/raster/bench.ts
