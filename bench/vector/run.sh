#!/usr/bin/env bash
# Vector benchmark (issues 3 and 9), one command: bash bench/vector/run.sh
# Installs what it needs if missing (the project's node_modules; parquet-wasm, apache-arrow, hyparquet and
# polyclip-ts into bench/vector/node_modules; the previous version's worktree, see below), writes and
# checks bench/data/vector_1m.parquet once (~10 s), then runs
#   bench.ts  (~1 min)   issue 3: a 324-feature AOI, cache off/on, 20 ms away, pruning off;
#   phases.ts (~10 s)    where a warm query's time goes;
#   scale.ts  (~5-8 min) issue 9: small / medium / large / no-covering AOIs against the naive reader,
#                        the full scan and the previous version (commit 2ac88c1).
# Results: stdout, bench/out/vector-results.md and .json, bench/out/vector-phases.md,
# bench/out/vector-scale.md and .json. A part that fails (or finds a mismatch) does not stop the others;
# the exit status is then 1.
# Options (environment):
#   BENCH_PARTS ("bench phases scale"): the parts to run;
#   bench.ts: BENCH_RUNS (20), BENCH_AOIS (20), BENCH_NOCOVER_RUNS (2), BENCH_WARMUP (10);
#   phases.ts: BENCH_PHASE_RUNS (20);
#   scale.ts: BENCH_RUNS_SMALL (20), BENCH_RUNS_MEDIUM (10), BENCH_RUNS_LARGE (3), BENCH_RUNS_NOCOVER (3),
#     BENCH_WARMUP_SMALL (10), BENCH_WARMUP_MEDIUM (3), BENCH_WARMUP_LARGE (1), BENCH_WARMUP_NOCOVER (1),
#     BENCH_FULLSCAN_RUNS (3), BENCH_TIMEOUT_S (120), BENCH_CASE_BUDGET_S (240), BENCH_HEALTH_MS (10),
#     BENCH_PREV_DIR (/tmp/zonal-prev), BENCH_PREV=0 to leave the previous version out.
set -euo pipefail
cd "$(dirname "$0")/../.."

PARTS=" ${BENCH_PARTS:-bench phases scale} "
PREV_COMMIT=2ac88c1
PREV_DIR="${BENCH_PREV_DIR:-/tmp/zonal-prev}"

[ -d node_modules ] || npm ci --no-audit --no-fund
for dep in parquet-wasm apache-arrow hyparquet hyparquet-compressors polyclip-ts; do
  if [ ! -d "bench/vector/node_modules/$dep" ]; then
    (cd bench/vector && npm ci --no-audit --no-fund --ignore-scripts)
    break
  fi
done

# The previous version (issue 9's baseline): a detached worktree of $PREV_COMMIT with its own node_modules
# (~1 min the first time). Any failure here leaves it out of the run, with the reason in the results.
prev_skip=""
if [[ "$PARTS" == *" scale "* ]]; then
  if [ "${BENCH_PREV:-1}" = 0 ]; then
    prev_skip="BENCH_PREV=0"
  else
    want=$(git rev-parse "$PREV_COMMIT^{commit}")
    if [ "$(git -C "$PREV_DIR" rev-parse HEAD 2>/dev/null || true)" != "$want" ] || [ ! -f "$PREV_DIR/src/app.ts" ]; then
      if [ -e "$PREV_DIR" ]; then
        prev_skip="$PREV_DIR exists but is not a worktree of $PREV_COMMIT (remove it, or set BENCH_PREV_DIR)"
      else
        git worktree prune
        git worktree add --detach "$PREV_DIR" "$PREV_COMMIT" >/dev/null 2>&1 || prev_skip="git worktree add --detach $PREV_DIR $PREV_COMMIT failed"
      fi
    fi
    if [ -z "$prev_skip" ] && [ ! -d "$PREV_DIR/node_modules/fastify" ]; then
      echo "installing the previous version's dependencies in $PREV_DIR (npm ci) …"
      (cd "$PREV_DIR" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null) || prev_skip="npm ci --ignore-scripts in $PREV_DIR failed"
    fi
  fi
  [ -z "$prev_skip" ] || echo "previous version left out: $prev_skip"
fi

node bench/vector/make-data.mjs

status=0
if [[ "$PARTS" == *" bench "* ]]; then
  node --import tsx bench/vector/bench.ts || status=1
  echo
fi
if [[ "$PARTS" == *" phases "* ]]; then
  node --import tsx bench/vector/phases.ts || status=1
  echo
fi
if [[ "$PARTS" == *" scale "* ]]; then
  BENCH_PREV_SKIP="$prev_skip" node --import tsx bench/vector/scale.ts || status=1
fi
exit $status
