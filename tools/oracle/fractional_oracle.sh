#!/usr/bin/env bash
# Runs the terra oracle for fractional coverage (dev tool; the test suite never needs R).
#   bash tools/oracle/fractional_oracle.sh [NAME ...]
# Installs Debian's r-cran-terra when Rscript or terra is missing (needs root / apt).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v Rscript >/dev/null 2>&1 || ! Rscript -e 'quit(status = !requireNamespace("terra", quietly = TRUE))' >/dev/null 2>&1; then
  echo "installing r-cran-terra (apt-get)…" >&2
  apt-get install -y --no-install-recommends r-cran-terra >&2
fi
exec Rscript "$here/fractional_oracle.R" "$@"
