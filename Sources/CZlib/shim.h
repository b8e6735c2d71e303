#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit / inflateInit are macros over the *_ functions; Swift cannot call macros. */
static inline int czlib_deflate_init(z_streamp stream, int level) {
    return deflateInit(stream, level);
}
static inline int czlib_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}
#endif
