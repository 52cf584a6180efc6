/*
 * zonal_inflate: DEFLATE (zlib-wrapped, TIFF compression 8 / 32946) through libdeflate, the library GDAL
 * links: on a 1024 x 1024 UInt16 Sentinel-2 tile 3.0-3.2 ms against node:zlib's 3.8-4.6 ms (bench/codecs),
 * and it can stop after the rows a request needs, at a cost linear in them. Optional:
 * src/raster/codecs/deflate.ts falls back to node:zlib, with the same bytes out, where this addon was not
 * built. Node-API only, so one build loads in every Node version.
 *
 * inflate(src: Uint8Array, dst: Uint8Array): number
 *   Decompresses the zlib stream `src` into `dst` and returns how many leading bytes of `dst` are final:
 *   the stream's whole length when it fits, else at least dst.length - PREFIX_MARGIN (see below). Throws
 *   an Error for corrupt data.
 *
 * Why a prefix is exact: libdeflate writes its output in stream order and never moves backwards; when
 * the next item does not fit it stops with LIBDEFLATE_INSUFFICIENT_SPACE, leaving every byte before its
 * write position final. The largest item is a stored block (65,535 bytes; a match is at most 258), so
 * at least dst.length - 65,535 bytes are final. Callers that need the first n bytes of a tile pass a
 * buffer of n + PREFIX_MARGIN bytes and stop inflating there (test/raster/inflate.test.ts checks every
 * prefix against a whole decode).
 */
#include <node_api.h>
#include <libdeflate.h>
#include <stdint.h>

#define PREFIX_MARGIN 65536

/* One decompressor per thread (Node-API environment): libdeflate's are not shared between threads. */
static void free_decompressor(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  libdeflate_free_decompressor((struct libdeflate_decompressor *)data);
}

static struct libdeflate_decompressor *decompressor(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) == napi_ok && data != NULL) return data;
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  if (d != NULL && napi_set_instance_data(env, d, free_decompressor, NULL) != napi_ok) {
    libdeflate_free_decompressor(d);
    return NULL;
  }
  return d;
}

static int bytes_of(napi_env env, napi_value v, uint8_t **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  void *raw;
  if (napi_get_typedarray_info(env, v, &type, length, &raw, &buffer, &offset) != napi_ok || type != napi_uint8_array) return 0;
  *data = raw;
  return 1;
}

static napi_value inflate(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_value result;
  uint8_t *src, *dst;
  size_t src_len, dst_len, actual = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      !bytes_of(env, argv[0], &src, &src_len) || !bytes_of(env, argv[1], &dst, &dst_len)) {
    napi_throw_type_error(env, NULL, "inflate(src: Uint8Array, dst: Uint8Array)");
    return NULL;
  }
  struct libdeflate_decompressor *d = decompressor(env);
  if (d == NULL) {
    napi_throw_error(env, NULL, "libdeflate: out of memory");
    return NULL;
  }
  enum libdeflate_result r = libdeflate_zlib_decompress(d, src, src_len, dst, dst_len, &actual);
  if (r == LIBDEFLATE_SUCCESS) {
    napi_create_double(env, (double)actual, &result);
    return result;
  }
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
    napi_create_double(env, dst_len > PREFIX_MARGIN ? (double)(dst_len - PREFIX_MARGIN) : 0.0, &result);
    return result;
  }
  napi_throw_error(env, NULL, "invalid DEFLATE data (libdeflate)");
  return NULL;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_value fn, margin;
  napi_create_function(env, "inflate", NAPI_AUTO_LENGTH, inflate, NULL, &fn);
  napi_set_named_property(env, exports, "inflate", fn);
  napi_create_uint32(env, PREFIX_MARGIN, &margin);
  napi_set_named_property(env, exports, "prefixMargin", margin);
  return exports;
}
