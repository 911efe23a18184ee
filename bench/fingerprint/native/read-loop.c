/*
 * The native memory-bandwidth ceiling for bench/fingerprint: a single-thread read loop with
 * 256-bit (AVX2) loads, built as a Node-API add-on by native-ceiling.ts at bench time (gcc -O2
 * -mavx2; never committed as a binary) and called in the benchmark's own process on the very bytes
 * the WebAssembly kernel scans (a view of the kernel's shared memory), so both see the same pages,
 * page size and machine load.
 *
 * readAvx2(u8) -> bigint: ORs the view's bytes (rounded down to 256) with eight 32-byte loads per
 * step into four accumulators (independent dependency chains; the loop does the least work per
 * byte a scan can do). readSse(u8) is the same with 16-byte loads, to show whether load width
 * matters from DRAM. The OR is returned so the compiler cannot drop the loads.
 */
#include <immintrin.h>
#include <node_api.h>
#include <stdint.h>

typedef uint64_t (*reader)(const uint8_t *, size_t);

__attribute__((target("avx2"))) static uint64_t read_avx2(const uint8_t *p, size_t len) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  const uint8_t *end = p + (len & ~(size_t)255);
  for (; p < end; p += 256) {
    a0 = _mm256_or_si256(a0, _mm256_loadu_si256((const __m256i *)(p + 0)));
    a1 = _mm256_or_si256(a1, _mm256_loadu_si256((const __m256i *)(p + 32)));
    a2 = _mm256_or_si256(a2, _mm256_loadu_si256((const __m256i *)(p + 64)));
    a3 = _mm256_or_si256(a3, _mm256_loadu_si256((const __m256i *)(p + 96)));
    a0 = _mm256_or_si256(a0, _mm256_loadu_si256((const __m256i *)(p + 128)));
    a1 = _mm256_or_si256(a1, _mm256_loadu_si256((const __m256i *)(p + 160)));
    a2 = _mm256_or_si256(a2, _mm256_loadu_si256((const __m256i *)(p + 192)));
    a3 = _mm256_or_si256(a3, _mm256_loadu_si256((const __m256i *)(p + 224)));
  }
  __m256i a = _mm256_or_si256(_mm256_or_si256(a0, a1), _mm256_or_si256(a2, a3));
  return (uint64_t)_mm256_extract_epi64(a, 0) | (uint64_t)_mm256_extract_epi64(a, 1) |
         (uint64_t)_mm256_extract_epi64(a, 2) | (uint64_t)_mm256_extract_epi64(a, 3);
}

static uint64_t read_sse(const uint8_t *p, size_t len) {
  __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
  const uint8_t *end = p + (len & ~(size_t)127);
  for (; p < end; p += 128) {
    a0 = _mm_or_si128(a0, _mm_loadu_si128((const __m128i *)(p + 0)));
    a1 = _mm_or_si128(a1, _mm_loadu_si128((const __m128i *)(p + 16)));
    a2 = _mm_or_si128(a2, _mm_loadu_si128((const __m128i *)(p + 32)));
    a3 = _mm_or_si128(a3, _mm_loadu_si128((const __m128i *)(p + 48)));
    a0 = _mm_or_si128(a0, _mm_loadu_si128((const __m128i *)(p + 64)));
    a1 = _mm_or_si128(a1, _mm_loadu_si128((const __m128i *)(p + 80)));
    a2 = _mm_or_si128(a2, _mm_loadu_si128((const __m128i *)(p + 96)));
    a3 = _mm_or_si128(a3, _mm_loadu_si128((const __m128i *)(p + 112)));
  }
  __m128i a = _mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3));
  return (uint64_t)_mm_cvtsi128_si64(a) | (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(a, a));
}

/* Calls `fn` on the bytes of the Uint8Array given as the only argument (unaligned loads: no
 * penalty on aligned data, and the kernel's views are 64-byte aligned anyway). */
static napi_value run(napi_env env, napi_callback_info info, reader fn) {
  size_t argc = 1;
  napi_value argv[1], out;
  napi_typedarray_type type;
  size_t length, offset;
  void *data;
  napi_value buffer;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_typedarray_info(env, argv[0], &type, &length, &data, &buffer, &offset) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "expected a Uint8Array");
    return NULL;
  }
  napi_create_bigint_uint64(env, fn((const uint8_t *)data, length), &out);
  return out;
}

static napi_value js_read_avx2(napi_env env, napi_callback_info info) { return run(env, info, read_avx2); }
static napi_value js_read_sse(napi_env env, napi_callback_info info) { return run(env, info, read_sse); }

NAPI_MODULE_INIT() {
  napi_value f;
  napi_create_function(env, "readAvx2", NAPI_AUTO_LENGTH, js_read_avx2, NULL, &f);
  napi_set_named_property(env, exports, "readAvx2", f);
  napi_create_function(env, "readSse", NAPI_AUTO_LENGTH, js_read_sse, NULL, &f);
  napi_set_named_property(env, exports, "readSse", f);
  return exports;
}
