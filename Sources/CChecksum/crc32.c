#include "cchecksum.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* Folding constants for the reflected polynomial 0xEDB88320, each x^n mod P(x) bit-reflected
   and shifted one place (the layout of Intel's "Fast CRC Computation for Generic Polynomials
   Using PCLMULQDQ Instruction"): a 512-bit fold (four lanes), a 128-bit fold (one lane), the
   96-to-64 bit fold, and P'(x) and mu for the final Barrett reduction. */
static const uint64_t foldBy4[2] = {0x154442bd4ULL, 0x1c6e41596ULL};
static const uint64_t foldBy1[2] = {0x1751997d0ULL, 0x0ccaa009eULL};
static const uint64_t foldTo32 = 0x163cd6124ULL;
static const uint64_t barrett[2] = {0x1db710641ULL, 0x1f7011641ULL};

int cardsync_crc32_folding_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_PCLMUL) != 0 && (ecx & bit_SSE4_1) != 0;
}

__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold(__m128i lane, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(lane, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(lane, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse4.1")))
uint32_t cardsync_crc32_folded(uint32_t state, const uint8_t *bytes, size_t length, size_t *consumed) {
    if (length < 64) {
        *consumed = 0;
        return state;
    }
    const uint8_t *start = bytes;
    __m128i x1 = _mm_loadu_si128((const __m128i *)(bytes + 0));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(bytes + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(bytes + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(bytes + 48));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)state));
    bytes += 64;
    length -= 64;

    __m128i constants = _mm_loadu_si128((const __m128i *)foldBy4);
    while (length >= 64) {
        x1 = fold(x1, constants, _mm_loadu_si128((const __m128i *)(bytes + 0)));
        x2 = fold(x2, constants, _mm_loadu_si128((const __m128i *)(bytes + 16)));
        x3 = fold(x3, constants, _mm_loadu_si128((const __m128i *)(bytes + 32)));
        x4 = fold(x4, constants, _mm_loadu_si128((const __m128i *)(bytes + 48)));
        bytes += 64;
        length -= 64;
    }

    constants = _mm_loadu_si128((const __m128i *)foldBy1);
    x1 = fold(x1, constants, x2);
    x1 = fold(x1, constants, x3);
    x1 = fold(x1, constants, x4);
    while (length >= 16) {
        x1 = fold(x1, constants, _mm_loadu_si128((const __m128i *)bytes));
        bytes += 16;
        length -= 16;
    }

    /* 128 bits to 64: the low half times x^64 mod P (the second 128-bit constant), added to
       the high half. */
    __m128i mask32 = _mm_setr_epi32(-1, 0, 0, 0);
    __m128i product = _mm_clmulepi64_si128(x1, constants, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), product);
    /* 64 bits to 32 (with 32 zero bits appended). */
    __m128i shifted = _mm_srli_si128(x1, 4);
    x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), _mm_cvtsi64_si128((long long)foldTo32), 0x00);
    x1 = _mm_xor_si128(x1, shifted);
    /* Barrett reduction to the 32-bit remainder. */
    __m128i reduction = _mm_loadu_si128((const __m128i *)barrett);
    __m128i quotient = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), reduction, 0x10);
    __m128i remainder = _mm_clmulepi64_si128(_mm_and_si128(quotient, mask32), reduction, 0x00);
    x1 = _mm_xor_si128(x1, remainder);
    *consumed = (size_t)(bytes - start);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

#else

int cardsync_crc32_folding_available(void) { return 0; }

uint32_t cardsync_crc32_folded(uint32_t state, const uint8_t *bytes, size_t length, size_t *consumed) {
    (void)bytes;
    (void)length;
    *consumed = 0;
    return state;
}

#endif
