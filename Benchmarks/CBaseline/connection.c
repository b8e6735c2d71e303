/* Opening, keying and configuring a baseline connection, plus the small helpers the workloads share. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int cb_fail(cb_db *db, int rc, const char *what) {
    const char *reason = (db->sqlite != NULL) ? sqlite3_errmsg(db->sqlite) : sqlite3_errstr(rc);
    snprintf(db->message, sizeof db->message, "%s: %s (rc %d)", what, reason, rc);
    return rc;
}

int cb_fail_text(cb_db *db, int rc, const char *text) {
    snprintf(db->message, sizeof db->message, "%s", text);
    return rc;
}

int cb_exec(cb_db *db, const char *sql) {
    int rc = sqlite3_exec(db->sqlite, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? SQLITE_OK : cb_fail(db, rc, sql);
}

int cb_prepare(cb_db *db, const char *sql, sqlite3_stmt **statement) {
    int rc = sqlite3_prepare_v2(db->sqlite, sql, -1, statement, NULL);
    return rc == SQLITE_OK ? SQLITE_OK : cb_fail(db, rc, sql);
}

int cb_step_done(cb_db *db, sqlite3_stmt *statement, const char *what) {
    int rc = sqlite3_step(statement);
    if (rc != SQLITE_DONE) {
        cb_fail(db, rc, what);
        sqlite3_reset(statement);
        return rc == SQLITE_ROW ? SQLITE_MISUSE : rc;
    }
    rc = sqlite3_reset(statement);
    return rc == SQLITE_OK ? SQLITE_OK : cb_fail(db, rc, what);
}

/* Reads sqlite_master so a wrong key fails here, at open, and not at first use. */
static int validate_key(cb_db *db) {
    sqlite3_stmt *statement = NULL;
    int rc = cb_prepare(db, "SELECT count(*) FROM sqlite_master", &statement);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(statement);
    if (rc != SQLITE_ROW) cb_fail(db, rc, "validating key (reading sqlite_master)");
    sqlite3_finalize(statement);
    return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* journal_mode answers with the mode it ended in; anything but "wal" is a failure, not a silent fallback. */
static int enable_wal(cb_db *db) {
    char mode[16];
    int rc = cb_pragma_text(db, "journal_mode = WAL", mode, (int)sizeof mode);
    if (rc != SQLITE_OK) return rc;
    if (strcmp(mode, "wal") != 0) return cb_fail_text(db, SQLITE_ERROR, "journal_mode = WAL was refused");
    return SQLITE_OK;
}

static int apply_cipher_settings(cb_db *db, const cb_settings *settings) {
    char sql[96];
    int rc = SQLITE_OK;
    if (settings->page_size > 0) {
        snprintf(sql, sizeof sql, "PRAGMA cipher_page_size = %d", settings->page_size);
        rc = cb_exec(db, sql);
    }
    if (rc == SQLITE_OK && settings->kdf_iter > 0) {
        snprintf(sql, sizeof sql, "PRAGMA kdf_iter = %d", settings->kdf_iter);
        rc = cb_exec(db, sql);
    }
    if (rc == SQLITE_OK && settings->use_hmac >= 0) {
        rc = cb_exec(db, settings->use_hmac ? "PRAGMA cipher_use_hmac = ON" : "PRAGMA cipher_use_hmac = OFF");
    }
    /* auto_vacuum only takes effect before the first table exists; on a populated file it is a no-op. */
    if (rc == SQLITE_OK && settings->auto_vacuum >= 0) {
        snprintf(sql, sizeof sql, "PRAGMA auto_vacuum = %d", settings->auto_vacuum);
        rc = cb_exec(db, sql);
    }
    return rc;
}

static int apply_connection_settings(cb_db *db, const cb_settings *settings) {
    int rc = enable_wal(db);
    if (rc == SQLITE_OK) rc = cb_exec(db, "PRAGMA synchronous = NORMAL");
    if (rc == SQLITE_OK && settings->cache_kib > 0) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA cache_size = -%d", settings->cache_kib);
        rc = cb_exec(db, sql);
    }
    if (rc == SQLITE_OK && settings->wal_autocheckpoint >= 0) {
        rc = sqlite3_wal_autocheckpoint(db->sqlite, settings->wal_autocheckpoint);
        if (rc != SQLITE_OK) rc = cb_fail(db, rc, "setting wal_autocheckpoint");
    }
    return rc;
}

int cb_open(const char *path, const void *key, int key_len, const cb_settings *settings, cb_db **out) {
    if (out == NULL) return CB_BAD_ARGUMENT;
    *out = calloc(1, sizeof(cb_db));
    cb_db *db = *out;
    if (db == NULL) return SQLITE_NOMEM;
    if (path == NULL || settings == NULL) return cb_fail_text(db, CB_BAD_ARGUMENT, "missing path or settings");
    /* An empty key makes sqlite3_key fail and leaves a plaintext database behind: refuse it up front. */
    if (key == NULL || key_len <= 0) return cb_fail_text(db, CB_BAD_ARGUMENT, "empty key");

    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    int rc = sqlite3_open_v2(path, &db->sqlite, flags, NULL);
    if (rc != SQLITE_OK) return cb_fail(db, rc, "opening the database");
    /* Coffer's default busy timeout. Without one, a writer whose BEGIN IMMEDIATE meets the WAL write lock
     * held for a moment by a reader (which takes it to re-read a wal-index header it caught mid-update)
     * fails with SQLITE_BUSY: one W10 run of the C baseline ended so. */
    sqlite3_busy_timeout(db->sqlite, 10000);
    rc = sqlite3_key(db->sqlite, key, key_len);
    if (rc != SQLITE_OK) return cb_fail(db, rc, "keying the database");
    rc = apply_cipher_settings(db, settings);
    if (rc == SQLITE_OK) rc = validate_key(db);
    if (rc == SQLITE_OK) rc = apply_connection_settings(db, settings);
    return rc;
}

void cb_close(cb_db *db) {
    if (db == NULL) return;
    sqlite3_close_v2(db->sqlite);
    free(db);
}

const char *cb_errmsg(const cb_db *db) {
    return db == NULL ? "out of memory allocating the baseline handle" : db->message;
}

int cb_create_schema(cb_db *db) {
    int rc = cb_exec(db,
                     "CREATE TABLE kv(rowid INTEGER PRIMARY KEY, collection TEXT NOT NULL, key TEXT NOT NULL, "
                     "data BLOB, metadata BLOB)");
    return rc == SQLITE_OK ? cb_exec(db, "CREATE UNIQUE INDEX kv_ck ON kv(collection, key)") : rc;
}

int cb_pragma_text(cb_db *db, const char *name, char *buffer, int capacity) {
    if (name == NULL || buffer == NULL || capacity <= 0) return CB_BAD_ARGUMENT;
    buffer[0] = '\0';
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    sqlite3_stmt *statement = NULL;
    int rc = cb_prepare(db, sql, &statement);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(statement);
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(statement, 0);
        if (text != NULL) snprintf(buffer, (size_t)capacity, "%s", (const char *)text);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    } else {
        cb_fail(db, rc, sql);
    }
    sqlite3_finalize(statement);
    return rc;
}

int cb_wait_until_unlocked(const char *path, int timeout_ms) {
    if (path == NULL || timeout_ms < 0) return CB_BAD_ARGUMENT;
    sqlite3 *probe = NULL;
    int rc = sqlite3_open_v2(path, &probe, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(probe, timeout_ms);
        sqlite3_stmt *statement = NULL;
        /* Without the key page 1 does not decrypt: the answer is "not a database" once the lock was taken. */
        rc = sqlite3_prepare_v2(probe, "SELECT count(*) FROM sqlite_master", -1, &statement, NULL);
        sqlite3_finalize(statement);
        rc = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? SQLITE_BUSY : SQLITE_OK;
    }
    sqlite3_close_v2(probe);
    return rc;
}

const char *cb_sqlite_version(void) { return sqlite3_libversion(); }

const char *cb_sqlite_source_id(void) { return sqlite3_sourceid(); }
