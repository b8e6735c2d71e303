#ifndef CBASELINE_H
#define CBASELINE_H

/*
 * The C baseline of coffer-bench: the fixed workloads of BENCHMARKS.md written directly on the
 * SQLCipher C API with prepared statements, so Coffer's figures can be given as ratios to it.
 *
 * Every function returns an SQLite result code (SQLITE_OK = 0 on success) or one of the CB_*
 * codes below; on failure cb_errmsg() describes what failed. Messages never contain key bytes
 * or stored values. Timing is not done here: the Swift harness times each call with the same
 * clock it uses for Coffer, so both sides are measured the same way.
 *
 * A handle is used by one thread at a time (the connection is opened with SQLITE_OPEN_NOMUTEX).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A stored value had no integer "age" field where the benchmark record has one. */
#define CB_BAD_VALUE 1000
/** A caller argument was out of range (empty key, negative count, missing buffer). */
#define CB_BAD_ARGUMENT 1001

/** An open connection of the baseline; opaque to callers. */
typedef struct cb_db cb_db;

/** Cipher and cache settings applied on every open. A zero (or negative) field keeps the library default. */
typedef struct cb_settings {
    /** `PRAGMA cipher_page_size`; 0 keeps SQLCipher's default (1024 in 3.x). */
    int page_size;
    /** Page cache size in KiB, issued as `PRAGMA cache_size = -cache_kib`; 0 keeps SQLite's default (2000 KiB). */
    int cache_kib;
    /** `PRAGMA kdf_iter` (only used for passphrase keys); 0 keeps the default (64,000 in 3.x). */
    int kdf_iter;
    /** `PRAGMA cipher_use_hmac`: 1 on, 0 off, negative keeps the default (on). */
    int use_hmac;
    /**
     * `sqlite3_wal_autocheckpoint` in pages: negative keeps SQLite's default (1000 pages), 0 turns
     * automatic checkpoints off (what Coffer does on its own handles: it checkpoints from a
     * background queue instead).
     */
    int wal_autocheckpoint;
    /**
     * `PRAGMA auto_vacuum` issued before the schema is created (it has no effect on a populated file):
     * negative keeps the default (NONE), 0 NONE, 1 FULL (what Coffer sets on new files), 2 INCREMENTAL.
     */
    int auto_vacuum;
} cb_settings;

/**
 * A list of byte strings packed into one buffer: string i is bytes[offsets[i] ..< offsets[i + 1]].
 * `offsets` has count + 1 entries; the buffers must stay alive and unchanged during the call.
 */
typedef struct cb_packed {
    const unsigned char *bytes;
    const int64_t *offsets;
    int count;
} cb_packed;

/**
 * Opens (creating if needed) the database at `path`, keys it with `sqlite3_key(key, key_len)`
 * right after open, applies the cipher settings, validates the key by reading sqlite_master,
 * then sets journal_mode = WAL, synchronous = NORMAL and the cache size.
 *
 * `key` is either a passphrase (SQLCipher derives the page key with PBKDF2) or a raw key spec
 * `x'<64 hex digits>'`. An empty key is refused (it would silently give a plaintext file).
 * On return `*out` holds a handle whenever one could be allocated, even on failure, so that
 * cb_errmsg() can explain the failure; the caller always cb_close()s a non-NULL handle.
 */
int cb_open(const char *path, const void *key, int key_len, const cb_settings *settings, cb_db **out);

/** Closes the connection and frees the handle; NULL is ignored. */
void cb_close(cb_db *db);

/** The last error of this handle, or a fixed text when `db` is NULL; valid until the next call on it. */
const char *cb_errmsg(const cb_db *db);

/** Creates the BENCHMARKS.md storage shape: table `kv` and unique index `kv_ck(collection, key)`. */
int cb_create_schema(cb_db *db);

/**
 * W1: one write transaction inserting every (key, value) pair into `collection` with metadata NULL.
 * Keys and values have the same count. Commit (and the checkpoint it may trigger) is included.
 */
int cb_w1_insert(cb_db *db, const char *collection, const cb_packed *keys, const cb_packed *values);

/**
 * W2: one write transaction per pair, each upserting (key, value) with metadata NULL.
 * The upsert is UPDATE … WHERE collection AND key, then INSERT only if no row changed, so an
 * existing row keeps its rowid (SQLite 3.15.2 has no UPSERT syntax; INSERT OR REPLACE would
 * delete and re-insert the row under a new rowid).
 */
int cb_w2_upsert(cb_db *db, const char *collection, const cb_packed *keys, const cb_packed *values);

/**
 * W3: one read transaction reading the value of every key (repeats allowed).
 * `*found` counts the keys that had a row; `*age_sum` sums their `"age"` fields.
 */
int cb_w3_point_reads(cb_db *db, const char *collection, const cb_packed *keys, int64_t *found, int64_t *age_sum);

/** W4: one read transaction reading every (key, value) of `collection` in key order; counts rows and sums `"age"`. */
int cb_w4_enumerate(cb_db *db, const char *collection, int64_t *count, int64_t *age_sum);

/** Reads one value by key and returns its `"age"` field (W5's read); `*found` is 0 when there is no such row. */
int cb_read_one(cb_db *db, const char *collection, const char *key, int key_len, int *found, int64_t *age);

/** FNV-1a 64 over the value bytes of every row of `collection`, concatenated in key order (untimed check). */
int cb_content_fnv1a64(cb_db *db, const char *collection, uint64_t *hash, int64_t *count);

/**
 * Runs `PRAGMA <name>` and copies the first column of its first row into `buffer` (NUL-terminated,
 * truncated to `capacity`). An empty string means the pragma returned no row.
 */
int cb_pragma_text(cb_db *db, const char *name, char *buffer, int capacity);

/**
 * Waits until no connection of this process (or another) holds a lock on the database file at `path` that blocks
 * readers, for at most `timeout_ms`: opens an unkeyed handle with a busy timeout and asks for the schema, which
 * takes a SHARED lock before it finds the file unreadable. Returns SQLITE_OK once the lock was granted, SQLITE_BUSY
 * on timeout. Used between a closed store and its next open, never inside a timed region.
 */
int cb_wait_until_unlocked(const char *path, int timeout_ms);

/**
 * Marks the start of a timed region for callgrind (run with `--collect-atstart=no`): collection is turned on for the
 * calling thread. A no-op when the process does not run under valgrind.
 */
void cb_profile_region_begin(void);

/**
 * Marks the end of timed region number `index`: collection is turned off and the costs since the last dump are
 * written as a dump named `region-<index>`. A no-op when the process does not run under valgrind.
 */
void cb_profile_region_end(int index);

/** sqlite3_libversion() of the linked library. */
const char *cb_sqlite_version(void);

/** sqlite3_sourceid() of the linked library. */
const char *cb_sqlite_source_id(void);

/**
 * Finds the `"age":<integer>` field in a benchmark record and parses it. The records are encoded with
 * sorted keys, so the field is found at offset 1; this is a shortcut for the fixed record, not a JSON parser.
 * Returns 1 and sets `*age` when found, else 0.
 */
int cb_parse_age(const unsigned char *bytes, int length, int64_t *age);

#ifdef __cplusplus
}
#endif

#endif
