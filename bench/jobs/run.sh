#!/usr/bin/env bash
# Jobs benchmark (issue 23: OGC API – Processes jobs on Redis), one command: bash bench/jobs/run.sh
# Installs what it needs if missing (Debian GDAL + numpy for the zones, the project's node_modules,
# parquet-wasm and apache-arrow in bench/jobs/node_modules for the GeoParquet zones files), writes the
# Sentinel-2-layout COGs once when they are missing (bench/lib/s2_data.py, a few minutes the first time), the
# zones once (~10 s; the 1,000,000 points ~30 s), reads the COGs once so they are in the page cache, then
# runs bench/jobs/bench.ts (~12 min). Needs a Redis server (BENCH_REDIS_URL, default the local one's
# database 12; the run's keys are deleted after). Results: stdout, bench/out/jobs-results.md and .json.
# Options (environment): see bench/jobs/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

# PY and the GDAL/numpy/pyproj dev tools, installed when missing.
source bench/lib/dev-tools.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d bench/jobs/node_modules/parquet-wasm ] || (cd bench/jobs && npm ci --no-audit --no-fund)
redis_url="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/12}"
if ! node -e "const {Redis}=require('ioredis');const r=new Redis(process.argv[1],{lazyConnect:true,maxRetriesPerRequest:1});r.connect().then(()=>r.ping()).then(()=>process.exit(0),()=>process.exit(1))" "$redis_url"; then
  echo "no Redis answers at $redis_url: start one (redis-server --daemonize yes --port 6379 --save '') or set BENCH_REDIS_URL" >&2
  exit 1
fi

# s2_B04.tif is measured; s2_B08.tif (the same layout, another file) warms the processes up without decoding a tile of B04.
if [ ! -f bench/data/s2_B04.tif ] || [ ! -f bench/data/s2_B08.tif ]; then "$PY" bench/lib/s2_data.py; fi
parts=",${BENCH_PARTS:-throughput,memory,faults},"
sets=(100k)
if [[ "$parts" == *,memory,* ]]; then
  if [ "${BENCH_JOBS_MEM_ZONES:-points}" = points ]; then sets+=(1m-points); else sets+=(1m-squares); fi
fi
"$PY" bench/jobs/make-data.py "${sets[@]}"
group="${BENCH_JOBS_ROW_GROUP:-65536}"
node bench/jobs/make-parquet.mjs bench/data/jobs_zones_100k.f64 bench/data/jobs_zones_100k.parquet 5 "$group"
node bench/jobs/make-parquet.mjs bench/data/jobs_zones_100k.f64 bench/data/jobs_zones_10k.parquet 5 "$group" 10000
if [[ "$parts" == *,memory,* ]]; then
  if [ "${BENCH_JOBS_MEM_ZONES:-points}" = points ]; then
    node bench/jobs/make-parquet.mjs bench/data/jobs_points_1m.f64 bench/data/jobs_points_1m.parquet 1 "$group"
  else
    node bench/jobs/make-parquet.mjs bench/data/jobs_zones_1m.f64 bench/data/jobs_zones_1m.parquet 5 "$group"
  fi
fi
node scripts/build.mjs --if-stale   # the processes run as npm start runs them: node dist/server.js
cat bench/data/s2_B04.tif bench/data/s2_B08.tif >/dev/null   # warm the page cache: every process reads the local files
exec node --import tsx bench/jobs/bench.ts
