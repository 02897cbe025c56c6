#ifndef CARDSYNC_CCHECKSUM_H
#define CARDSYNC_CCHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Whether cardsync_crc32_folded can run here: an x86-64 processor with carry-less
   multiplication (PCLMULQDQ) and SSE4.1. The answer does not change while the process runs
   (cardsync asks once). */
int cardsync_crc32_folding_available(void);

/* Continues a CRC-32 (IEEE 802.3 polynomial, reflected, as zlib computes it) over `length`
   bytes. `state` is the running register (the complement of a finished checksum; 0xFFFFFFFF
   to start) and the register after `bytes` is returned, not complemented. Consumes the bytes
   in 64-byte blocks folded with carry-less multiplication and 16-byte steps after them;
   `*consumed` is how many bytes that was (a multiple of 16, 0 when `length` is under 64). The
   caller continues the rest byte by byte. Only call it when
   cardsync_crc32_folding_available() is 1. */
uint32_t cardsync_crc32_folded(uint32_t state, const uint8_t *bytes, size_t length, size_t *consumed);

#endif
