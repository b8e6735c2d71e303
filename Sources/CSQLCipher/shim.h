#ifndef CSQLCIPHER_SHIM_H
#define CSQLCIPHER_SHIM_H

/* Debian's sqlcipher.pc does not define SQLITE_HAS_CODEC, and without it the header
   hides sqlite3_key / sqlite3_rekey. */
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif

/* Name the SQLCipher header explicitly: a bare <sqlite3.h> silently falls back to
   libsqlite3-dev's header when pkg-config supplies no include path. */
#include <sqlcipher/sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import. */
static inline sqlite3_destructor_type csqlcipher_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
