#!/usr/bin/env bash
# Deployment smoke test: 3 instances of the compiled service behind Debian's nginx on loopback, steady load
# through nginx, one instance killed mid-load (KILL_SIGNAL, default KILL: no drain at all) and restarted;
# reports requests sent, failed and p99. Target: 0 failed. Installs nginx with apt-get when missing.
# Then deploy/smoke-jobs.sh (unless SMOKE_JOBS=0): 3 API replicas and 2 `zonal worker` processes on the local
# Redis, one worker SIGKILLed mid-job, every zone's row once; its JSON line comes last.
# Environment: DURATION_S (20), CONCURRENCY (8), KILL_SIGNAL (KILL), BASE_PORT (3101), NGINX_PORT (8088),
# SMOKE_JOBS (1); the jobs run on BASE_PORT + 10 and NGINX_PORT + 1.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
DURATION_S=${DURATION_S:-20}; CONCURRENCY=${CONCURRENCY:-8}; KILL_SIGNAL=${KILL_SIGNAL:-KILL}
BASE_PORT=${BASE_PORT:-3101}; NGINX_PORT=${NGINX_PORT:-8088}
node scripts/build.mjs --if-stale
WORK=$(mktemp -d); mkdir -p "$WORK"/{body,proxy,fastcgi,uwsgi,scgi}
pids=()
start() { # $1: instance number
  PORT=$((BASE_PORT + $1)) HOST=127.0.0.1 LOG_LEVEL=warn ZONAL_DRAIN_DELAY_MS=0 ZONAL_WORKERS=1 node dist/server.js >>"$WORK/instance$1.log" 2>&1 &
  pids[$1]=$!
}
wait_up() { for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$((BASE_PORT + $1))/health/ready" >/dev/null && return 0; sleep 0.1; done; echo "instance $1 did not start" >&2; return 1; }
cleanup() { kill "${pids[@]}" 2>/dev/null || true; "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for i in 0 1 2; do start $i; done
for i in 0 1 2; do wait_up $i; done
UPSTREAMS=""; for i in 0 1 2; do UPSTREAMS="${UPSTREAMS}server 127.0.0.1:$((BASE_PORT + i)) max_fails=1 fail_timeout=2s; "; done
sed -e "s|\${UPSTREAMS}|$UPSTREAMS|" -e "s|\${LISTEN}|127.0.0.1:$NGINX_PORT|" -e "s|\${PREFIX}|$WORK|g" deploy/nginx.conf.template >"$WORK/nginx.conf"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf"
URL="http://127.0.0.1:$NGINX_PORT" COG="file://$PWD/fixtures/demo/elev.cog.tif" DURATION_S=$DURATION_S CONCURRENCY=$CONCURRENCY node deploy/load.mjs >"$WORK/result.json" &
load=$!
sleep $((DURATION_S / 3))
kill -s "$KILL_SIGNAL" "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true
echo "instance 1 killed ($KILL_SIGNAL) at $((DURATION_S / 3)) s" >&2
sleep $((DURATION_S / 4))
start 1; wait_up 1; echo "instance 1 restarted" >&2
wait $load
cat "$WORK/result.json"
failed=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$WORK/result.json','utf8')).failed)")
[ "$failed" = 0 ]
cleanup; trap - EXIT
[ "${SMOKE_JOBS:-1}" = 0 ] || BASE_PORT=$((BASE_PORT + 10)) NGINX_PORT=$((NGINX_PORT + 1)) bash deploy/smoke-jobs.sh
