#!/usr/bin/env bash
# exactextract benchmark (issue 24: weights cost, per-cell lists of 10,000 zones, zones given as a raster), one command:
#   bash bench/exactextract/run.sh
# Installs what it needs if missing (Debian GDAL + numpy for the data and part 3's anchor, GNU time for the CPU
# seconds and peak RSS of exactextract and numpy, the project's node_modules), checks that the exactextract CLI answers
# (BENCH_EXACTEXTRACT, default /usr/local/bin/exactextract; /work/shared/ANCHORS.md says how to build it offline),
# writes the Sentinel-2-layout COGs once when they are missing (bench/lib/s2_data.py, a few minutes the first time),
# the 20 m weights and the zones once (~10 s), builds dist/ when it is stale, reads the files once so they are in the
# page cache, then runs bench/exactextract/bench.ts (~2 min). Part 3 alone (BENCH_PARTS=zones) needs neither the
# exactextract CLI nor make-data.py's files. Results: stdout, bench/out/exactextract-results.md and .json.
# Options (environment): see bench/exactextract/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

# PY and the GDAL/numpy/pyproj dev tools, installed when missing.
source bench/lib/dev-tools.sh
if [ ! -x /usr/bin/time ]; then
  echo "installing time (GNU time: the CPU seconds and peak RSS of exactextract and numpy)"
  apt-get update -qq && apt-get install -y -qq time >/dev/null
fi
# Parts 1 and 2 (weights, memory) run exactextract on make-data.py's files; part 3 (zones) runs numpy.
parts=",${BENCH_PARTS:-weights,memory,zones},"
ee_parts=0
if [[ $parts == *,weights,* || $parts == *,memory,* ]]; then ee_parts=1; fi
ee="${BENCH_EXACTEXTRACT:-/usr/local/bin/exactextract}"
if [ "$ee_parts" = 1 ] && ! "$ee" --help >/dev/null 2>&1; then
  echo "no exactextract CLI at $ee: build it as /work/shared/ANCHORS.md says (or set BENCH_EXACTEXTRACT)" >&2
  exit 1
fi
[ -d node_modules ] || npm ci --no-audit --no-fund

# s2_B04.tif is measured (the values); s2_B08.tif warms the service up and, averaged 2 x 2, is the weights;
# s2_SCL.tif (20 m scene classes) is part 3's zones.
if [ ! -f bench/data/s2_B04.tif ] || [ ! -f bench/data/s2_B08.tif ] || [ ! -f bench/data/s2_SCL.tif ]; then "$PY" bench/lib/s2_data.py; fi
warm=(bench/data/s2_B04.tif bench/data/s2_B08.tif)
if [ "$ee_parts" = 1 ]; then
  "$PY" bench/exactextract/make-data.py
  warm+=(bench/data/weights_20m.tif bench/data/ee_*_utm.gpkg)
fi
if [[ $parts == *,zones,* ]]; then warm+=(bench/data/s2_SCL.tif); fi
node scripts/build.mjs --if-stale   # the service runs as npm start runs it: node dist/server.js
cat "${warm[@]}" >/dev/null   # warm the page cache
exec node --import tsx bench/exactextract/bench.ts
