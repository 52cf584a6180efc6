#!/usr/bin/env python3
"""The cube benchmark's store as Zarr v3, for BENCH_CUBE_V3=1 (bench/cube/README.md):

    /usr/bin/python3 bench/cube/make-v3.py     # after make-data.py; a few seconds

Writes bench/data/cube/era5_t2m_v3.zarr beside era5_t2m.zarr: the same arrays and attributes with v3 metadata
(zarr.json, chunk keys c/t/y/x). `t2m` keeps its chunk files, linked (a v2 chunk of Blosc over C-order
little-endian int16 is exactly a v3 chunk of the codecs `bytes` little-endian then `blosc`); the coordinate
arrays are written once, uncompressed (`bytes` alone). Debian's zarr 2.13 cannot write v3: the documents are
written here from the v3.0 core spec, as tools/oracle/cube_fixtures.py writes the fixtures'.
"""
import json
import os
import sys

try:
    import numpy as np
    import zarr
except ImportError:  # a pyenv python3 first on the PATH lacks the Debian packages
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, '..', 'data', 'cube', 'era5_t2m.zarr')
DST = os.path.join(HERE, '..', 'data', 'cube', 'era5_t2m_v3.zarr')
TYPES = {'<i2': 'int16', '<i4': 'int32', '<i8': 'int64', '<f4': 'float32', '<f8': 'float64'}
LE = {'name': 'bytes', 'configuration': {'endian': 'little'}}


def array_meta(a, codecs):
    attrs = dict(a.attrs)
    dims = attrs.pop('_ARRAY_DIMENSIONS')
    return {'zarr_format': 3, 'node_type': 'array', 'shape': list(a.shape), 'data_type': TYPES[a.dtype.str],
            'chunk_grid': {'name': 'regular', 'configuration': {'chunk_shape': list(a.chunks)}},
            'chunk_key_encoding': {'name': 'default', 'configuration': {'separator': '/'}},
            'fill_value': a.fill_value.item() if a.fill_value is not None else 0,
            'codecs': codecs, 'attributes': attrs, 'dimension_names': dims}


def main():
    g = zarr.open_consolidated(SRC)
    os.makedirs(DST, exist_ok=True)
    with open(os.path.join(DST, 'zarr.json'), 'w') as f:
        json.dump({'zarr_format': 3, 'node_type': 'group', 'attributes': dict(g.attrs)}, f)
    for name in ['time', 'latitude', 'longitude']:
        a = g[name]
        assert len(a.chunks) == 1 and a.chunks[0] >= a.shape[0], name
        os.makedirs(os.path.join(DST, name, 'c'), exist_ok=True)
        with open(os.path.join(DST, name, 'c', '0'), 'wb') as f:
            f.write(np.ascontiguousarray(a[:]).astype(a.dtype.newbyteorder('<')).tobytes())
        with open(os.path.join(DST, name, 'zarr.json'), 'w') as f:
            json.dump(array_meta(a, [LE]), f)
    t = g['t2m']
    blosc = t.compressor.get_config()
    assert blosc['id'] == 'blosc' and blosc['cname'] == 'lz4' and blosc['shuffle'] == 1 and not t.filters and t.order == 'C'
    codecs = [LE, {'name': 'blosc', 'configuration': {'cname': 'lz4', 'clevel': blosc['clevel'], 'shuffle': 'shuffle',
                                                      'typesize': t.dtype.itemsize, 'blocksize': blosc['blocksize']}}]
    linked = 0
    for f in os.listdir(os.path.join(SRC, 't2m')):
        if f.startswith('.'):
            continue
        link = os.path.join(DST, 't2m', 'c', *f.split('.'))
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(os.path.relpath(os.path.join(SRC, 't2m', f), os.path.dirname(link)), link)
        linked += 1
    with open(os.path.join(DST, 't2m', 'zarr.json'), 'w') as f:
        json.dump(array_meta(t, codecs), f)
    print(f'wrote {os.path.normpath(DST)}: {linked} t2m chunks linked')


if __name__ == '__main__':
    main()
