#!/usr/bin/env bash
# Vector benchmark (issue 3), one command: bash bench/vector/run.sh
# Installs what it needs if missing (the project's node_modules; parquet-wasm + apache-arrow into
# bench/vector/node_modules), writes and checks bench/data/vector_1m.parquet once (~10 s), then runs
# bench/vector/bench.ts (~1 min) and bench/vector/phases.ts (~10 s). Results: stdout,
# bench/out/vector-results.md and .json, bench/out/vector-phases.md.
# Options (environment): BENCH_RUNS (20), BENCH_AOIS (20), BENCH_NOCOVER_RUNS (2), BENCH_PHASE_RUNS (20).
set -euo pipefail
cd "$(dirname "$0")/../.."

[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d bench/vector/node_modules/parquet-wasm ] || (cd bench/vector && npm ci --no-audit --no-fund)

node bench/vector/make-data.mjs
node --import tsx bench/vector/bench.ts
echo
node --import tsx bench/vector/phases.ts
