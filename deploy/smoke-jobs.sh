#!/usr/bin/env bash
# Jobs smoke test: 3 API replicas of the compiled service (ZONAL_JOB_WORKER=0) behind Debian's nginx and 2
# `zonal worker` processes, all on the local Redis (REDIS_URL: its own database, a key prefix of this run,
# both removed after) with results in a folder they share. One job of ZONES zones over the demo raster is
# submitted through nginx, one worker is SIGKILLed mid-job (its task is taken again by the other once its
# lock, ZONAL_JOB_LOCK_MS, lapses), and the job's rows are checked against direct requests for the same
# zones (deploy/jobs-check.mjs): one row per zone, each index once, equal to the direct answer. Prints one
# JSON line (zones, rows, duplicates, gaps, mismatches, seconds). Needs nginx and a Redis answering at
# REDIS_URL (.ci/run starts one). Called by deploy/smoke.sh; runs alone too.
# Environment: ZONES (3000), TASK_ZONES (250), LOCK_MS (5000), BASE_PORT (3111), NGINX_PORT (8089),
# REDIS_URL (redis://127.0.0.1:6379/11).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
ZONES=${ZONES:-3000}; TASK_ZONES=${TASK_ZONES:-250}; LOCK_MS=${LOCK_MS:-5000}
BASE_PORT=${BASE_PORT:-3111}; NGINX_PORT=${NGINX_PORT:-8089}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/11}
MAX_ZONES=1000
if ! redis-cli -u "$REDIS_URL" ping 2>/dev/null | grep -q PONG; then
  echo "smoke-jobs: no Redis answers at $REDIS_URL (start one: redis-server --daemonize yes; .ci/run does)" >&2
  exit 1
fi
node scripts/build.mjs --if-stale >&2
WORK=$(mktemp -d); mkdir -p "$WORK"/{body,proxy,fastcgi,uwsgi,scgi,results}
# nginx's workers drop root (to nobody or www-data) and spool the job's body (larger than their buffer) to body/.
chmod 755 "$WORK"; chmod 777 "$WORK"/{body,proxy,fastcgi,uwsgi,scgi}
PREFIX="zonal-smoke-$(basename "$WORK")-$$:"
pids=()
# What every process shares: the Redis, the key prefix, the results folder, the lock after which a dead
# worker's task is taken again.
common=(ZONAL_REDIS_URL="$REDIS_URL" ZONAL_REDIS_PREFIX="$PREFIX" ZONAL_RESULTS_URL="file://$WORK/results"
  ZONAL_JOB_LOCK_MS="$LOCK_MS" ZONAL_JOB_TASK_ZONES="$TASK_ZONES" ZONAL_MAX_ZONES=$MAX_ZONES LOG_LEVEL=warn ZONAL_WORKERS=1)
api() { # $1: replica number
  env "${common[@]}" PORT=$((BASE_PORT + $1)) HOST=127.0.0.1 ZONAL_DRAIN_DELAY_MS=0 ZONAL_JOB_WORKER=0 \
    node dist/server.js >>"$WORK/api$1.log" 2>&1 &
  pids+=($!)
}
worker() { # $1: worker number; sets worker_pid
  env "${common[@]}" node dist/cli/main.js worker >>"$WORK/worker$1.log" 2>&1 &
  worker_pid=$!; pids+=($worker_pid)
}
wait_up() { for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$((BASE_PORT + $1))/health/ready" >/dev/null && return 0; sleep 0.1; done; echo "replica $1 did not start" >&2; return 1; }
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
  # This run's keys only (its own prefix), in batches.
  redis-cli -u "$REDIS_URL" --scan --pattern "${PREFIX}*" 2>/dev/null | xargs -r -n 500 redis-cli -u "$REDIS_URL" unlink >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then for f in "$WORK"/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done; fi
  cleanup
  exit $rc
}
trap on_exit EXIT
for i in 0 1 2; do api $i; done
worker 0
worker 1; victim=$worker_pid
for i in 0 1 2; do wait_up $i; done
UPSTREAMS=""; for i in 0 1 2; do UPSTREAMS="${UPSTREAMS}server 127.0.0.1:$((BASE_PORT + i)) max_fails=1 fail_timeout=2s; "; done
sed -e "s|\${UPSTREAMS}|$UPSTREAMS|" -e "s|\${LISTEN}|127.0.0.1:$NGINX_PORT|" -e "s|\${PREFIX}|$WORK|g" deploy/nginx.conf.template >"$WORK/nginx.conf"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf"
URL="http://127.0.0.1:$NGINX_PORT" COG="file://$PWD/fixtures/demo/elev.cog.tif" ZONES=$ZONES SLICE=$MAX_ZONES KILL_PID=$victim \
  node deploy/jobs-check.mjs
