#ifndef CARDSYNC_CZLIB_SHIM_H
#define CARDSYNC_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros (they pass the library version and the stream's
   size), which Swift cannot call: these two functions stand in for them. */
static inline int cardsync_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

static inline int cardsync_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
