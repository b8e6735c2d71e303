#!/usr/bin/env bash
# CI: CofferSync (Sync/) against a real PostgreSQL. Installs PostgreSQL from Debian's packages
# when missing, starts a throwaway cluster in a temporary directory on loopback (as the
# `postgres` user when run as root: PostgreSQL refuses to run as root), creates an admin role
# with CREATEROLE, applies the schema with `coffer-sync init-server`, runs the sync package's
# tests with the admin URL in COFFER_SYNC_TEST_ADMIN_URL, and always stops and removes the
# cluster. Without this script the server tests are skipped and say how to run them.
# About 10 s beyond building the package (the first build of postgres-nio takes minutes).
set -euo pipefail
cd "$(dirname "$0")/../.."

. Sync/scripts/throwaway-cluster.sh
# German server messages (when the locale can be built): the tests then show that errors are
# told apart by SQLSTATE, never by PostgreSQL's English text.
THROWAWAY_LC_MESSAGES=de_DE.UTF-8 start_throwaway_cluster coffer-sync-pg
export COFFER_SYNC_TEST_LC_MESSAGES="$lc_messages"
# The canary test scans every file of the cluster (this script runs as root, so it can read it).
export COFFER_SYNC_TEST_DATA_DIRECTORY="$data"
create_sync_database coffer_sync_test
# CREATEDB for the schema-version test's own database; pg_signal_backend so that the listener
# test can cut its own device's connection; pg_checkpoint (PostgreSQL 15 and later) so that the
# canary test can flush every page first.
psql_super -d postgres <<SQL
ALTER ROLE coffer_admin CREATEDB;
GRANT pg_signal_backend TO coffer_admin;
DO \$\$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pg_checkpoint') THEN
        GRANT pg_checkpoint TO coffer_admin;
    END IF;
END \$\$;
SQL

export COFFER_SYNC_TEST_ADMIN_URL="$admin_url"
swift build --package-path Sync --product coffer-sync
COFFER_SYNC_ADMIN_URL="$admin_url" swift run --package-path Sync --skip-build coffer-sync init-server
# The Getting Started article's code, run: two devices through this server (it drops its space).
COFFER_SYNC_ADMIN_URL="$admin_url" timeout 120 swift run --package-path Sync --skip-build coffer-sync demo
swift test --package-path Sync "$@"
# A real restart breaks every connection, so each restart test runs alone, after the others.
export COFFER_SYNC_TEST_RESTART_COMMAND="${as_owner[*]} ${server_env[*]} $pg_bin/pg_ctl -D $data -l $workdir/server.log -w -t 60 -m fast restart"
timeout 300 swift test --package-path Sync --skip-build --filter ServerRestartTests
timeout 300 swift test --package-path Sync --skip-build --filter EngineRestartTests
# CofferSync's DocC catalog, warnings as errors; after the tests, whose build it reuses.
COFFER_DOCS=1 swift package --package-path Sync generate-documentation --target CofferSync --warnings-as-errors
