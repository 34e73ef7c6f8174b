/* parse-perf-scan.c - newline scanning for the perf script parser: finds every '\n' of a chunk
 * (and whether it holds a NUL byte) with vector compares: AVX-512 or AVX2 picked at run time,
 * SSE2 as the x86-64 baseline, plain C elsewhere. */
#include "parse-perf.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* Emits the offsets of the set bits of mask (bit i = byte base + i). Lines average well
 * over 64 bytes, so most masks hold zero, one or two bits: the first four are stored
 * without branching (ends has room past its last entry), the rest in a loop. */
#define EMIT_BITS(mask, base)                                                          \
	do {                                                                           \
		uint64_t m_ = (mask);                                                  \
		size_t c_ = (size_t)__builtin_popcountll(m_);                          \
		uint32_t b_ = (uint32_t)(base);                                        \
		ends[n] = b_ + (uint32_t)__builtin_ctzll(m_ | 1ull << 63);             \
		m_ &= m_ - 1;                                                          \
		ends[n + 1] = b_ + (uint32_t)__builtin_ctzll(m_ | 1ull << 63);         \
		m_ &= m_ - 1;                                                          \
		ends[n + 2] = b_ + (uint32_t)__builtin_ctzll(m_ | 1ull << 63);         \
		m_ &= m_ - 1;                                                          \
		ends[n + 3] = b_ + (uint32_t)__builtin_ctzll(m_ | 1ull << 63);         \
		if (FK_UNLIKELY(c_ > 4)) {                                             \
			m_ &= m_ - 1;                                                  \
			for (size_t k_ = 4; k_ < c_; k_++) {                           \
				ends[n + k_] = b_ + (uint32_t)__builtin_ctzll(m_);     \
				m_ &= m_ - 1;                                          \
			}                                                              \
		}                                                                      \
		n += c_;                                                               \
	} while (0)

static size_t scan_scalar(const char *p, size_t len, uint32_t *ends, bool *nul)
{
	size_t n = 0;
	const char *s = p, *end = p + len;
	if (memchr(p, 0, len))
		*nul = true;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			break;
		ends[n++] = (uint32_t)(nl - p);
		s = nl + 1;
	}
	return n;
}

/* The tail shorter than one vector goes byte by byte (no read past the end: the
 * chunk may end at the end of a mapping). */
static size_t scan_tail(const char *p, size_t i, size_t len, uint32_t *ends, size_t n, bool *nul)
{
	for (; i < len; i++) {
		if (p[i] == '\n')
			ends[n++] = (uint32_t)i;
		else if (!p[i])
			*nul = true;
	}
	return n;
}

#ifdef HAVE_X86
static size_t scan_sse2(const char *p, size_t len, uint32_t *ends, bool *nul)
{
	size_t n = 0, i = 0;
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	__m128i anyz = zero;
	for (; i + 64 <= len; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(p + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(p + i + 32));
		__m128i d = _mm_loadu_si128((const __m128i *)(p + i + 48));
		uint64_t m = (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, nl)) |
			     (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, nl)) << 16 |
			     (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, nl)) << 32 |
			     (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, nl)) << 48;
		__m128i mn = _mm_min_epu8(_mm_min_epu8(a, b), _mm_min_epu8(c, d));
		anyz = _mm_or_si128(anyz, _mm_cmpeq_epi8(mn, zero));
		EMIT_BITS(m, i);
	}
	if (_mm_movemask_epi8(anyz))
		*nul = true;
	return scan_tail(p, i, len, ends, n, nul);
}

__attribute__((target("avx2"))) static size_t scan_avx2(const char *p, size_t len, uint32_t *ends,
							 bool *nul)
{
	size_t n = 0, i = 0;
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	__m256i anyz = zero;
	for (; i + 64 <= len; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
		uint64_t m = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, nl)) |
			     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, nl)) << 32;
		anyz = _mm256_or_si256(anyz, _mm256_cmpeq_epi8(_mm256_min_epu8(a, b), zero));
		EMIT_BITS(m, i);
	}
	if (_mm256_movemask_epi8(anyz))
		*nul = true;
	return scan_tail(p, i, len, ends, n, nul);
}

/* One 64-byte compare per block, straight into a mask. */
__attribute__((target("avx512f,avx512bw"))) static size_t scan_avx512(const char *p, size_t len, uint32_t *ends,
								    bool *nul)
{
	size_t n = 0, i = 0;
	const __m512i nl = _mm512_set1_epi8('\n'), zero = _mm512_setzero_si512();
	uint64_t anyz = 0;
	for (; i + 64 <= len; i += 64) {
		__m512i v = _mm512_loadu_si512((const void *)(p + i));
		anyz |= _mm512_cmpeq_epi8_mask(v, zero);
		EMIT_BITS(_mm512_cmpeq_epi8_mask(v, nl), i);
	}
	if (anyz)
		*nul = true;
	return scan_tail(p, i, len, ends, n, nul);
}
#endif

#ifdef HAVE_X86
static bool have_avx512bw(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}
#endif

fk_perf_scan_fn fk_perf_pick_scan(const char **name)
{
	/* tests and benchmarks pin a variant: scalar, sse2, or avx2 where the CPU has it */
	const char *force = getenv("FLAMEKIT_SIMD");
#ifdef HAVE_X86
	if (force && !strcmp(force, "scalar")) {
		*name = "scalar";
		return scan_scalar;
	}
	if (force && !strcmp(force, "sse2")) {
		*name = "sse2";
		return scan_sse2;
	}
	bool avx512 = have_avx512bw(); /* also initializes the CPU feature tests */
	if (force && !strcmp(force, "avx2") && __builtin_cpu_supports("avx2")) {
		*name = "avx2";
		return scan_avx2;
	}
	if (avx512) {
		*name = "avx512";
		return scan_avx512;
	}
	if (__builtin_cpu_supports("avx2")) {
		*name = "avx2";
		return scan_avx2;
	}
	*name = "sse2";
	return scan_sse2;
#else
	(void)force;
	*name = "scalar";
	return scan_scalar;
#endif
}
