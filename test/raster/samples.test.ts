/**
 * Decompressed bytes → samples, on tiny tiles whose bytes are written out by hand from the TIFF 6.0
 * rules (byte order, predictor 2 differences, MSB-first bit packing with rows padded to a byte, IEEE half
 * floats). The corpus test (conformance.test.ts) checks the same code against GDAL on real files.
 */
import { describe, expect, it } from 'vitest';
import { sampleType, toSamples } from '../../src/raster/samples.ts';
import { georeferencing, type TileCodec } from '../../src/raster/geotiff-adapter.ts';

function codec(over: Partial<TileCodec>): TileCodec {
  return {
    compression: 1,
    predictor: 1,
    planarConfiguration: 1,
    samplesPerPixel: 1,
    bitsPerSample: [8],
    sampleFormat: [1],
    tileWidth: 2,
    tileHeight: 2,
    littleEndian: true,
    photometric: 1,
    fillOrder: 1,
    jpegTables: null,
    lercAddCompression: 0,
    ...over,
  };
}

const raw = (bytes: number[]) => ({ bytes: Uint8Array.from(bytes), native: false });
const values = (a: ArrayLike<number | bigint>) => Array.from(a, (v) => (typeof v === 'bigint' ? v.toString() : v));

describe('sampleType (GDAL mapping of bit depth and SampleFormat)', () => {
  it('widens odd unsigned and signed depths to the next word, as GDAL reads them', () => {
    expect(sampleType(1, 1)).toEqual({ dtype: 'uint8' });
    expect(sampleType(1, 12)).toEqual({ dtype: 'uint16' });
    expect(sampleType(1, 24)).toEqual({ dtype: 'uint32' });
    expect(sampleType(2, 4)).toEqual({ dtype: 'uint8' });
    expect(sampleType(2, 12)).toEqual({ dtype: 'uint16' });
    expect(sampleType(2, 16)).toEqual({ dtype: 'int16' });
    expect(sampleType(2, 64)).toEqual({ dtype: 'int64' });
    expect(sampleType(3, 16)).toEqual({ dtype: 'float32' });
  });
  it('refuses what GDAL cannot read exactly, naming it', () => {
    expect(sampleType(3, 24)).toEqual({ refuse: '24-bit floating-point samples' });
    expect(sampleType(5, 32)).toEqual({ refuse: 'complex-valued samples' });
    expect(sampleType(6, 64)).toEqual({ refuse: 'complex-valued samples' });
  });
});

describe('toSamples', () => {
  it('unpacks 4-bit samples MSB first, each row padded to a byte', () => {
    // 3 samples per row = 12 bits, padded to 2 bytes: rows [1, 2, 15] and [8, 0, 7].
    const v = toSamples(codec({ bitsPerSample: [4], tileWidth: 3 }), raw([0x12, 0xf0, 0x80, 0x70]), 2);
    expect(values(v.array)).toEqual([1, 2, 15, 8, 0, 7]);
  });

  it('unpacks 12-bit samples across byte boundaries', () => {
    // 0xABC, 0x123 | 0xFFF, 0x001 → bytes AB C1 23 | FF F0 01
    const v = toSamples(codec({ bitsPerSample: [12] }), raw([0xab, 0xc1, 0x23, 0xff, 0xf0, 0x01]), 2);
    expect(values(v.array)).toEqual([0xabc, 0x123, 0xfff, 0x001]);
  });

  it('unpacks 1-bit masks and reads signed odd depths in the unsigned domain, as GDAL does', () => {
    const v = toSamples(codec({ bitsPerSample: [1], tileWidth: 3 }), raw([0b10100000, 0b01100000]), 2);
    expect(values(v.array)).toEqual([1, 0, 1, 0, 1, 1]);
    const s = toSamples(codec({ bitsPerSample: [4], sampleFormat: [2] }), raw([0xf1, 0x80]), 2);
    expect(values(s.array)).toEqual([15, 1, 8, 0]);
  });

  it('swaps big-endian words before undoing the horizontal predictor', () => {
    // Int16 row [-2831, -2830, -2900] differenced: [-2831, 1, -70], written big-endian.
    const be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
    const bytes = [...be(-2831 & 0xffff), ...be(1), ...be(-70 & 0xffff)];
    const v = toSamples(codec({ bitsPerSample: [16], sampleFormat: [2], tileWidth: 3, littleEndian: false, predictor: 2 }), raw(bytes), 1);
    expect(v.array).toBeInstanceOf(Int16Array);
    expect(values(v.array)).toEqual([-2831, -2830, -2900]);
  });

  it('undoes predictor 2 per sample of pixel-interleaved bands', () => {
    // Two bands, one row of two pixels: [10, 200], [13, 190] → differences [10, 200, 3, -10 & 0xff].
    const v = toSamples(codec({ samplesPerPixel: 2, predictor: 2 }), raw([10, 200, 3, 246]), 1);
    expect(values(v.array)).toEqual([10, 200, 13, 190]);
  });

  it('reads 24-bit samples as GDAL does: big-endian triples in little-endian files and the reverse', () => {
    // GDAL 3.6 wrote 0x90526a into a little-endian file as the bytes 90 52 6a.
    expect(values(toSamples(codec({ bitsPerSample: [24], tileWidth: 2 }), raw([0x90, 0x52, 0x6a, 0, 0, 9]), 1).array)).toEqual([0x90526a, 9]);
    expect(values(toSamples(codec({ bitsPerSample: [24], tileWidth: 2, littleEndian: false }), raw([1, 2, 3, 0xff, 0xff, 0xff]), 1).array)).toEqual([
      0x030201, 0xffffff,
    ]);
  });

  it('reads 64-bit big-endian integers exactly, with predictor 2', () => {
    // [2^40, 2^40 + 5]: differences [2^40, 5], big-endian.
    const bytes = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5];
    const v = toSamples(codec({ bitsPerSample: [64], sampleFormat: [1], littleEndian: false, predictor: 2 }), raw(bytes), 1);
    expect(values(v.array).slice(0, 2)).toEqual([String(2 ** 40), String(2 ** 40 + 5)]);
  });

  it('widens IEEE half floats to float32, in either byte order', () => {
    // 0x3C00 = 1, 0xC000 = −2, 0x7BFF = 65504, 0x0001 = 2^−24 (subnormal)
    const le = toSamples(codec({ bitsPerSample: [16], sampleFormat: [3] }), raw([0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00]), 2);
    expect(values(le.array)).toEqual([1, -2, 65504, 2 ** -24]);
    const be = toSamples(codec({ bitsPerSample: [16], sampleFormat: [3], littleEndian: false }), raw([0x3c, 0x00, 0xc0, 0x00, 0x7b, 0xff, 0x00, 0x01]), 2);
    expect(values(be.array)).toEqual([1, -2, 65504, 2 ** -24]);
  });
});

describe('georeferencing (GDAL geotransform from the GeoTIFF tags)', () => {
  it('takes ModelPixelScale + ModelTiepoint, shifted half a pixel for PixelIsPoint as GDAL does', () => {
    const area = georeferencing([], [0.5, 0.25, 0], [0, 0, 0, 10, 50, 0], false);
    expect(area.geoTransform).toEqual([10, 0.5, 0, 50, 0, -0.25]);
    const point = georeferencing([], [0.5, 0.25, 0], [0, 0, 0, 10, 50, 0], true);
    expect(point.geoTransform).toEqual([9.75, 0.5, 0, 50.125, 0, -0.25]);
  });
  it('reads a rotated or south-up ModelTransformation', () => {
    // x = 100 + 2 col + 1 row; y = 200 + 0.5 col + 3 row (south-up: y grows with the row)
    const t = [2, 1, 0, 100, 0.5, 3, 0, 200, 0, 0, 0, 0, 0, 0, 0, 1];
    expect(georeferencing(t, [], [], false).geoTransform).toEqual([100, 2, 1, 200, 0.5, 3]);
    expect(georeferencing(t, [], [], true).geoTransform).toEqual([100 - 1 - 0.5, 2, 1, 200 - 0.25 - 1.5, 0.5, 3]);
  });
  it('reports tiepoints without a scale as ground control points', () => {
    expect(georeferencing([], [], [0, 0, 0, 1, 2, 0, 10, 10, 0, 3, 4, 0], false)).toEqual({ geoTransform: null, gcpCount: 2 });
  });
});
