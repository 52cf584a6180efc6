/** Zarr's number types: each v2 dtype's code (`i2` of `<i2`) and the v3 data_type of the same numbers. Pure. */
export const ZARR_TYPES: Readonly<Record<string, string>> = {
  b1: 'bool',
  i1: 'int8',
  u1: 'uint8',
  i2: 'int16',
  u2: 'uint16',
  i4: 'int32',
  u4: 'uint32',
  i8: 'int64',
  u8: 'uint64',
  f2: 'float16',
  f4: 'float32',
  f8: 'float64',
};
