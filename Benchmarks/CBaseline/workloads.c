/* The timed workloads W1–W5 of BENCHMARKS.md and the untimed content check, on prepared statements. */

#include <string.h>

#include "internal.h"

static const char insert_sql[] = "INSERT INTO kv(collection, key, data, metadata) VALUES (?1, ?2, ?3, NULL)";
static const char update_sql[] = "UPDATE kv SET data = ?3, metadata = NULL WHERE collection = ?1 AND key = ?2";
static const char point_sql[] = "SELECT data FROM kv WHERE collection = ?1 AND key = ?2";
static const char enumerate_sql[] = "SELECT key, data FROM kv WHERE collection = ?1 ORDER BY key";
static const char values_sql[] = "SELECT data FROM kv WHERE collection = ?1 ORDER BY key";

static int packed_is_valid(const cb_packed *packed) {
    return packed != NULL && packed->count >= 0 &&
           (packed->count == 0 || (packed->bytes != NULL && packed->offsets != NULL));
}

static const unsigned char *packed_item(const cb_packed *packed, int index, int *length) {
    int64_t start = packed->offsets[index];
    *length = (int)(packed->offsets[index + 1] - start);
    return packed->bytes + start;
}

/* The buffers outlive every step, so SQLite may read them in place (SQLITE_STATIC): no copies. */
static int bind_text(cb_db *db, sqlite3_stmt *statement, int index, const void *text, int length) {
    int rc = sqlite3_bind_text(statement, index, (const char *)text, length, SQLITE_STATIC);
    return rc == SQLITE_OK ? SQLITE_OK : cb_fail(db, rc, "binding text");
}

static int bind_pair(cb_db *db, sqlite3_stmt *statement, const cb_packed *keys, const cb_packed *values, int index) {
    int key_length = 0;
    int value_length = 0;
    const unsigned char *key = packed_item(keys, index, &key_length);
    const unsigned char *value = packed_item(values, index, &value_length);
    int rc = bind_text(db, statement, 2, key, key_length);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_bind_blob(statement, 3, value, value_length, SQLITE_STATIC);
    return rc == SQLITE_OK ? SQLITE_OK : cb_fail(db, rc, "binding a value");
}

/* Prepares a statement whose ?1 is the collection, which stays bound for every step. */
static int prepare_in_collection(cb_db *db, const char *sql, const char *collection, sqlite3_stmt **statement) {
    int rc = cb_prepare(db, sql, statement);
    return rc == SQLITE_OK ? bind_text(db, *statement, 1, collection, -1) : rc;
}

/* Ends a failed transaction without replacing the message of the failure that caused it. */
static int roll_back_after(cb_db *db, int rc) {
    if (rc != SQLITE_OK && !sqlite3_get_autocommit(db->sqlite)) sqlite3_exec(db->sqlite, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static int read_age(cb_db *db, sqlite3_stmt *statement, int column, int64_t *age) {
    const void *value = sqlite3_column_blob(statement, column);
    int length = sqlite3_column_bytes(statement, column);
    if (value == NULL || !cb_parse_age(value, length, age)) {
        return cb_fail_text(db, CB_BAD_VALUE, "a stored value has no \"age\" field");
    }
    return SQLITE_OK;
}

int cb_w1_insert(cb_db *db, const char *collection, const cb_packed *keys, const cb_packed *values) {
    if (!packed_is_valid(keys) || !packed_is_valid(values) || keys->count != values->count) return CB_BAD_ARGUMENT;
    sqlite3_stmt *insert = NULL;
    int rc = cb_exec(db, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK) rc = prepare_in_collection(db, insert_sql, collection, &insert);
    for (int i = 0; rc == SQLITE_OK && i < keys->count; i++) {
        rc = bind_pair(db, insert, keys, values, i);
        if (rc == SQLITE_OK) rc = cb_step_done(db, insert, "inserting a record");
    }
    sqlite3_finalize(insert);
    if (rc == SQLITE_OK) rc = cb_exec(db, "COMMIT");
    return roll_back_after(db, rc);
}

/* One upsert transaction: UPDATE keeps the row (and its rowid) when the key exists, INSERT otherwise. */
static int upsert_one(cb_db *db, sqlite3_stmt *const statements[4], const cb_packed *keys, const cb_packed *values,
                      int index) {
    sqlite3_stmt *begin = statements[0], *update = statements[1], *insert = statements[2], *commit = statements[3];
    int rc = cb_step_done(db, begin, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK) rc = bind_pair(db, update, keys, values, index);
    if (rc == SQLITE_OK) rc = cb_step_done(db, update, "updating a record");
    if (rc == SQLITE_OK && sqlite3_changes(db->sqlite) == 0) {
        rc = bind_pair(db, insert, keys, values, index);
        if (rc == SQLITE_OK) rc = cb_step_done(db, insert, "inserting a record");
    }
    if (rc == SQLITE_OK) rc = cb_step_done(db, commit, "COMMIT");
    return roll_back_after(db, rc);
}

int cb_w2_upsert(cb_db *db, const char *collection, const cb_packed *keys, const cb_packed *values) {
    if (!packed_is_valid(keys) || !packed_is_valid(values) || keys->count != values->count) return CB_BAD_ARGUMENT;
    sqlite3_stmt *statements[4] = {NULL, NULL, NULL, NULL};
    int rc = cb_prepare(db, "BEGIN IMMEDIATE", &statements[0]);
    if (rc == SQLITE_OK) rc = prepare_in_collection(db, update_sql, collection, &statements[1]);
    if (rc == SQLITE_OK) rc = prepare_in_collection(db, insert_sql, collection, &statements[2]);
    if (rc == SQLITE_OK) rc = cb_prepare(db, "COMMIT", &statements[3]);
    for (int i = 0; rc == SQLITE_OK && i < keys->count; i++) rc = upsert_one(db, statements, keys, values, i);
    for (int i = 0; i < 4; i++) sqlite3_finalize(statements[i]);
    return rc;
}

int cb_w3_point_reads(cb_db *db, const char *collection, const cb_packed *keys, int64_t *found, int64_t *age_sum) {
    if (!packed_is_valid(keys) || found == NULL || age_sum == NULL) return CB_BAD_ARGUMENT;
    *found = 0;
    *age_sum = 0;
    sqlite3_stmt *select = NULL;
    int rc = cb_exec(db, "BEGIN");
    if (rc == SQLITE_OK) rc = prepare_in_collection(db, point_sql, collection, &select);
    for (int i = 0; rc == SQLITE_OK && i < keys->count; i++) {
        int key_length = 0;
        const unsigned char *key = packed_item(keys, i, &key_length);
        rc = bind_text(db, select, 2, key, key_length);
        if (rc != SQLITE_OK) break;
        int step = sqlite3_step(select);
        if (step == SQLITE_ROW) {
            int64_t age = 0;
            rc = read_age(db, select, 0, &age);
            *found += 1;
            *age_sum += age;
        } else if (step != SQLITE_DONE) {
            rc = cb_fail(db, step, "reading a record by key");
        }
        sqlite3_reset(select);
    }
    sqlite3_finalize(select);
    if (rc == SQLITE_OK) rc = cb_exec(db, "COMMIT");
    return roll_back_after(db, rc);
}

int cb_w4_enumerate(cb_db *db, const char *collection, int64_t *count, int64_t *age_sum) {
    if (count == NULL || age_sum == NULL) return CB_BAD_ARGUMENT;
    *count = 0;
    *age_sum = 0;
    sqlite3_stmt *select = NULL;
    int rc = cb_exec(db, "BEGIN");
    if (rc == SQLITE_OK) rc = prepare_in_collection(db, enumerate_sql, collection, &select);
    int step = SQLITE_ROW;
    while (rc == SQLITE_OK && (step = sqlite3_step(select)) == SQLITE_ROW) {
        /* The key is read like the value: an enumeration hands both to the caller. */
        if (sqlite3_column_text(select, 0) == NULL) {
            rc = cb_fail_text(db, CB_BAD_VALUE, "a stored key is NULL");
            break;
        }
        int64_t age = 0;
        rc = read_age(db, select, 1, &age);
        *count += 1;
        *age_sum += age;
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE) rc = cb_fail(db, step, "enumerating the collection");
    sqlite3_finalize(select);
    if (rc == SQLITE_OK) rc = cb_exec(db, "COMMIT");
    return roll_back_after(db, rc);
}

int cb_read_one(cb_db *db, const char *collection, const char *key, int key_length, int *found, int64_t *age) {
    if (key == NULL || key_length < 0 || found == NULL || age == NULL) return CB_BAD_ARGUMENT;
    *found = 0;
    *age = 0;
    sqlite3_stmt *select = NULL;
    int rc = prepare_in_collection(db, point_sql, collection, &select);
    if (rc == SQLITE_OK) rc = bind_text(db, select, 2, key, key_length);
    if (rc == SQLITE_OK) {
        int step = sqlite3_step(select);
        if (step == SQLITE_ROW) {
            *found = 1;
            rc = read_age(db, select, 0, age);
        } else if (step != SQLITE_DONE) {
            rc = cb_fail(db, step, "reading a record by key");
        }
    }
    sqlite3_finalize(select);
    return rc;
}

int cb_content_fnv1a64(cb_db *db, const char *collection, uint64_t *hash, int64_t *count) {
    if (hash == NULL || count == NULL) return CB_BAD_ARGUMENT;
    uint64_t h = 0xcbf29ce484222325ULL;
    *count = 0;
    sqlite3_stmt *select = NULL;
    int rc = prepare_in_collection(db, values_sql, collection, &select);
    int step = SQLITE_ROW;
    while (rc == SQLITE_OK && (step = sqlite3_step(select)) == SQLITE_ROW) {
        const unsigned char *value = sqlite3_column_blob(select, 0);
        int length = sqlite3_column_bytes(select, 0);
        for (int i = 0; i < length; i++) {
            h ^= value[i];
            h *= 0x100000001b3ULL;
        }
        *count += 1;
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE) rc = cb_fail(db, step, "reading values in key order");
    sqlite3_finalize(select);
    *hash = h;
    return rc;
}

int cb_parse_age(const unsigned char *bytes, int length, int64_t *age) {
    static const char field[] = "\"age\":";
    const int field_length = (int)sizeof field - 1;
    for (int start = 0; start + field_length <= length; start++) {
        if (bytes[start] != '"' || memcmp(bytes + start, field, (size_t)field_length) != 0) continue;
        int i = start + field_length;
        int negative = (i < length && bytes[i] == '-');
        if (negative) i++;
        int64_t value = 0;
        int digits = 0;
        for (; i < length && bytes[i] >= '0' && bytes[i] <= '9' && digits < 18; i++, digits++) {
            value = value * 10 + (bytes[i] - '0');
        }
        if (digits == 0) return 0;
        *age = negative ? -value : value;
        return 1;
    }
    return 0;
}
