#ifndef CBASELINE_INTERNAL_H
#define CBASELINE_INTERNAL_H

/* Shared between the connection and workload files of the baseline; not part of the public header. */

#include <sqlcipher/sqlite3.h>

#include "CBaseline.h"

struct cb_db {
    sqlite3 *sqlite;
    char message[512];
};

/* Records a failure on the handle as "<what>: <sqlite message> (rc N)" and returns rc. */
int cb_fail(cb_db *db, int rc, const char *what);

/* Records a failure that did not come from SQLite. */
int cb_fail_text(cb_db *db, int rc, const char *text);

/* Runs SQL without results (pragmas, DDL, rollback); no bound values, so nothing secret is in it. */
int cb_exec(cb_db *db, const char *sql);

/* Prepares one statement, recording the failure with the SQL text. */
int cb_prepare(cb_db *db, const char *sql, sqlite3_stmt **statement);

/* Steps a statement that must finish without rows (BEGIN, COMMIT, INSERT, UPDATE) and resets it. */
int cb_step_done(cb_db *db, sqlite3_stmt *statement, const char *what);

#endif
