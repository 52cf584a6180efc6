# Sourced by the benches' run.sh (from the repository root): PY, Debian's Python, and the dev tools the data and
# the anchors need (GDAL's command line and Python bindings, numpy, pyproj), installed when missing. Bench-only:
# the service never needs them.
PY=/usr/bin/python3
if ! command -v gdalinfo >/dev/null || ! "$PY" -c 'import osgeo.gdal, numpy, pyproj' 2>/dev/null; then
  echo "installing gdal-bin python3-gdal python3-numpy python3-pyproj (bench-only dev tools)"
  apt-get update -qq && apt-get install -y -qq gdal-bin python3-gdal python3-numpy python3-pyproj >/dev/null
fi
