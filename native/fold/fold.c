/*
 * zonal_fold: the plain fold of a cube's steps (src/stats/moments.ts packRun) for a run of bands that share
 * one decoded chunk, in C: the same arithmetic in the same order, so the same bits (compiled without
 * floating-point contraction or fast-math; test/raster/fold-native.test.ts compares every field of both on
 * random runs of every sample type). In the cube benchmark packRun took ~27 ns a cell of the workers' CPU
 * (50 M cells a request); alone, over a chunk's 24 steps, this loop ~12 ns against ~20 for the JavaScript on
 * Node 24 (~13 on Node 20). Over many chunks, as a request folds them, it waited on memory: the next planes'
 * samples are prefetched (9 → 5 ns a cell). Optional: src/raster/fold-plain.ts folds in JavaScript
 * where this addon was not built. Node-API only, so one build loads in every Node version.
 *
 * packRuns(raw, first, planeStride, bands, at, weights, cells, areas, n, nodata, scale, offset, flags, out, o, outStride)
 *   For band b of `bands`, cell k of `n`: the sample raw[at[k] + first + b * planeStride] (nodata where
 *   at[k] < 0 or the index is outside `raw`, as JavaScript's undefined is), nodata too where it is NaN or
 *   equals `nodata` (NaN: none), else the value sample * scale + offset (nodata where NaN). Writes the packed
 *   state of a fresh accumulator after each cell (moments.ts PACKED_FIELDS = 14 numbers) at
 *   out[o + b * outStride ...], then the valid cells' summed weight * area at out[o + b * outStride + 14].
 *   flags: 1 weighted, 2 Σv·w (mean, sum), 4 Welford's spread, 8 `areas` given. Throws on wrong arguments.
 */
#include <node_api.h>
#include <math.h>
#include <stdint.h>
#include <stddef.h>

#define PACKED_FIELDS 14
/* The band whose samples are prefetched while one folds: this many planes on (2 was the fastest of 1, 2, 4). */
#define AHEAD 2
#define F_WEIGHTED 1
#define F_MOMENTS 2
#define F_SPREAD 4
#define F_AREAS 8

typedef struct {
  const int32_t *at;
  const double *weights;
  const int32_t *cells;
  const double *areas; /* NULL: no data area */
  size_t n;
  double nodata, scale, offset;
  int flags;
} Run;

/* One band; `get(i)` reads sample i of the raw array (i checked against `len` by the caller's macro). */
#define FOLD_BAND(T, IS_FLOAT)                                                                         \
  static void fold_##T(const T *raw, size_t len, size_t first, const Run *r, double *out,            \
                       size_t ahead) {                                                               \
    const int weighted = r->flags & F_WEIGHTED, moments = r->flags & F_MOMENTS,                      \
              spread = r->flags & F_SPREAD;                                                          \
    double items = 0, wSum = 0, wComp = 0, vSum = 0, vComp = 0, shift = 0, mean = 0, m2 = 0;         \
    double min = INFINITY, max = -INFINITY, nodataSum = 0, nodataComp = 0, minCell = -1,             \
           maxCell = -1, area = 0;                                                                   \
    for (size_t k = 0; k < r->n; k++) {                                                              \
      const int32_t place = r->at[k];                                                                \
      const double weight = r->weights[k];                                                           \
      if (ahead != SIZE_MAX && place >= 0)                                                           \
        __builtin_prefetch((const void *)((uintptr_t)raw + ((uintptr_t)place + ahead) * sizeof(T))); \
      double value = NAN;                                                                            \
      if (place >= 0 && (size_t)place < len && first < len - (size_t)place) {                                               \
        const double sample = (double)raw[(size_t)place + first];                                    \
        if (!(IS_FLOAT && sample != sample) && !(sample == r->nodata))                                \
          value = sample * r->scale + r->offset;                                                     \
      }                                                                                              \
      if (value != value) {                                                                          \
        if (!(weight > 0)) continue;                                                                 \
        const double w = weighted ? weight : 1;                                                      \
        const double t = nodataSum + w;                                                              \
        nodataComp += nodataSum >= w ? nodataSum - t + w : w - t + nodataSum;                        \
        nodataSum = t;                                                                               \
        continue;                                                                                    \
      }                                                                                              \
      if (r->areas != NULL) area += weight * r->areas[k];                                            \
      if (!(weight > 0)) continue;                                                                   \
      const int isFirst = items == 0;                                                                \
      items += 1;                                                                                    \
      double w = 1, wt;                                                                              \
      if (weighted) {                                                                                \
        w = weight;                                                                                  \
        wt = wSum + w;                                                                               \
        wComp += wSum >= w ? wSum - wt + w : w - wt + wSum;                                          \
        wSum = wt;                                                                                   \
      } else {                                                                                       \
        wt = wSum = wSum + 1;                                                                        \
      }                                                                                              \
      if (moments) {                                                                                 \
        const double x = value * w;                                                                  \
        const double t = vSum + x;                                                                   \
        vComp += fabs(vSum) >= fabs(x) ? vSum - t + x : x - t + vSum;                                \
        vSum = t;                                                                                    \
      }                                                                                              \
      if (spread) {                                                                                  \
        if (isFirst) shift = value;                                                                  \
        const double d = value - shift;                                                              \
        const double delta = d - mean;                                                               \
        const double m = mean + delta * (w / wt);                                                    \
        m2 += w * delta * (d - m);                                                                   \
        mean = m;                                                                                    \
      }                                                                                              \
      if (value < min) {                                                                             \
        min = value;                                                                                 \
        minCell = r->cells[k];                                                                       \
      }                                                                                              \
      if (value > max) {                                                                             \
        max = value;                                                                                 \
        maxCell = r->cells[k];                                                                       \
      }                                                                                              \
    }                                                                                                \
    out[0] = items;                                                                                  \
    out[1] = wSum;                                                                                   \
    out[2] = wComp;                                                                                  \
    out[3] = vSum;                                                                                   \
    out[4] = vComp;                                                                                  \
    out[5] = shift;                                                                                  \
    out[6] = mean;                                                                                   \
    out[7] = m2;                                                                                     \
    out[8] = min;                                                                                    \
    out[9] = max;                                                                                    \
    out[10] = nodataSum;                                                                             \
    out[11] = nodataComp;                                                                            \
    out[12] = minCell;                                                                               \
    out[13] = maxCell;                                                                               \
    out[PACKED_FIELDS] = area;                                                                       \
  }

FOLD_BAND(int8_t, 0)
FOLD_BAND(uint8_t, 0)
FOLD_BAND(int16_t, 0)
FOLD_BAND(uint16_t, 0)
FOLD_BAND(int32_t, 0)
FOLD_BAND(uint32_t, 0)
FOLD_BAND(float, 1)
FOLD_BAND(double, 1)

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static int typed(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, length, data, &buffer, &offset) != napi_ok || type != want) return 0;
  return 1;
}

static int number(napi_env env, napi_value v, double *out) { return napi_get_value_double(env, v, out) == napi_ok; }

static int index_arg(napi_env env, napi_value v, size_t *out) {
  double d;
  if (!number(env, v, &d) || !(d >= 0) || d > 9007199254740991.0 || d != floor(d)) return 0;
  *out = (size_t)d;
  return 1;
}

static napi_value pack_runs(napi_env env, napi_callback_info info) {
  size_t argc = 16;
  napi_value argv[16];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 16) return fail(env, "packRuns: 16 arguments");
  napi_typedarray_type rawType;
  napi_value rawBuffer;
  size_t rawOffset, rawLen;
  void *raw;
  if (napi_get_typedarray_info(env, argv[0], &rawType, &rawLen, &raw, &rawBuffer, &rawOffset) != napi_ok) return fail(env, "packRuns: raw is not a typed array");
  size_t first, planeStride, bands, n, o, outStride, atLen, wLen, cLen, aLen = 0, outLen;
  double flagsD;
  Run r;
  void *at, *weights, *cells, *areas = NULL, *out;
  if (!index_arg(env, argv[1], &first) || !index_arg(env, argv[2], &planeStride) || !index_arg(env, argv[3], &bands) ||
      !index_arg(env, argv[8], &n) || !index_arg(env, argv[14], &o) || !index_arg(env, argv[15], &outStride))
    return fail(env, "packRuns: an index is not a non-negative integer");
  if (!typed(env, argv[4], napi_int32_array, &at, &atLen) || !typed(env, argv[5], napi_float64_array, &weights, &wLen) ||
      !typed(env, argv[6], napi_int32_array, &cells, &cLen) || !typed(env, argv[13], napi_float64_array, &out, &outLen))
    return fail(env, "packRuns: at, weights, cells or out is not of its type");
  if (!number(env, argv[9], &r.nodata) || !number(env, argv[10], &r.scale) || !number(env, argv[11], &r.offset) || !number(env, argv[12], &flagsD))
    return fail(env, "packRuns: nodata, scale, offset or flags is not a number");
  r.flags = (int)flagsD;
  if (r.flags & F_AREAS) {
    if (!typed(env, argv[7], napi_float64_array, &areas, &aLen) || aLen < n) return fail(env, "packRuns: areas is not a Float64Array of n");
  }
  if (atLen < n || wLen < n || cLen < n) return fail(env, "packRuns: a cell array is shorter than n");
  // Sizes bounded first, so that the products below cannot overflow.
  if (bands > outLen || outStride > outLen || o > outLen) return fail(env, "packRuns: an index is out of range");
  if (outStride < PACKED_FIELDS + 1 || (bands > 0 && o + (bands - 1) * outStride + PACKED_FIELDS + 1 > outLen)) return fail(env, "packRuns: out is too short");
  r.at = at;
  r.weights = weights;
  r.cells = cells;
  r.areas = areas;
  r.n = n;
  for (size_t b = 0; b < bands; b++) {
    // Saturated: a start past every index reads nothing (each sample nodata, as JavaScript's undefined).
    const size_t from = planeStride != 0 && b > (SIZE_MAX - first) / planeStride ? SIZE_MAX : first + b * planeStride;
    double *dst = (double *)out + o + b * outStride;
    // The samples of the band AHEAD planes on, fetched into the cache while this one folds: a chunk's planes
    // lie ~20 kB apart, and without it the fold waited on memory about as long as it computed (bench/cube).
    // Only a hint, never read here (a prefetch does not fault); SIZE_MAX: none (past the last band).
    const size_t later = b + AHEAD;
    const size_t ahead = later < bands && planeStride != 0 && later <= (SIZE_MAX - first) / planeStride ? first + later * planeStride : SIZE_MAX;
    switch (rawType) {
      case napi_int8_array: fold_int8_t(raw, rawLen, from, &r, dst, ahead); break;
      case napi_uint8_array:
      case napi_uint8_clamped_array: fold_uint8_t(raw, rawLen, from, &r, dst, ahead); break;
      case napi_int16_array: fold_int16_t(raw, rawLen, from, &r, dst, ahead); break;
      case napi_uint16_array: fold_uint16_t(raw, rawLen, from, &r, dst, ahead); break;
      case napi_int32_array: fold_int32_t(raw, rawLen, from, &r, dst, ahead); break;
      case napi_uint32_array: fold_uint32_t(raw, rawLen, from, &r, dst, ahead); break;
      case napi_float32_array: fold_float(raw, rawLen, from, &r, dst, ahead); break;
      case napi_float64_array: fold_double(raw, rawLen, from, &r, dst, ahead); break;
      default: return fail(env, "packRuns: raw samples of this type are not folded here");
    }
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "packRuns", NAPI_AUTO_LENGTH, pack_runs, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "packRuns", fn) != napi_ok) return NULL;
  return exports;
}
