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

if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
    echo "Installing postgresql…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
pg_bin="$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)"

# As root the cluster belongs to `postgres`; as anyone else, to the caller.
as_owner=()
if [ "$(id -u)" = 0 ]; then
    as_owner=(runuser -u postgres --)
fi

# In /tmp, not $TMPDIR: the `postgres` user must be able to reach it (and the socket path
# must stay under 108 bytes).
workdir="$(mktemp -d /tmp/coffer-sync-pg.XXXXXX)"
data="$workdir/data"
cleanup() {
    if [ -f "$data/postmaster.pid" ]; then
        "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] && chown postgres "$workdir"
chmod 700 "$workdir"

# Another worktree's run may hold the first port: take the first free one from 55432.
port=55432
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    port=$((port + 1))
done

admin_password="$(head -c 18 /dev/urandom | base64 | tr -d '+/=')"
superuser_password="$(head -c 18 /dev/urandom | base64 | tr -d '+/=')"
printf '%s\n' "$superuser_password" >"$workdir/superuser-password"
[ "$(id -u)" = 0 ] && chown postgres "$workdir/superuser-password"

# Local (socket, in the private temp dir) connections trust the cluster's owner; TCP needs SCRAM.
"${as_owner[@]}" "$pg_bin/initdb" -D "$data" -U postgres --pwfile="$workdir/superuser-password" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$workdir/initdb.log" 2>&1 ||
    { cat "$workdir/initdb.log" >&2; exit 1; }
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$data" -l "$workdir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$workdir -c fsync=off" \
    start >/dev/null ||
    { cat "$workdir/server.log" >&2; exit 1; }

psql_super() { "${as_owner[@]}" "$pg_bin/psql" -h "$workdir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
# CREATEROLE to enroll and revoke devices; CREATEDB for the schema-version test's own database;
# pg_signal_backend so that the listener test can cut its own device's connection.
psql_super -d postgres <<SQL
CREATE ROLE coffer_admin LOGIN CREATEROLE CREATEDB PASSWORD '$admin_password';
GRANT pg_signal_backend TO coffer_admin;
CREATE DATABASE coffer_sync_test OWNER coffer_admin;
SQL

export COFFER_SYNC_TEST_ADMIN_URL="postgres://coffer_admin:$admin_password@127.0.0.1:$port/coffer_sync_test"
swift build --package-path Sync --product coffer-sync
COFFER_SYNC_ADMIN_URL="$COFFER_SYNC_TEST_ADMIN_URL" swift run --package-path Sync --skip-build coffer-sync init-server
swift test --package-path Sync "$@"
# A real restart breaks every connection, so each restart test runs alone, after the others.
export COFFER_SYNC_TEST_RESTART_COMMAND="${as_owner[*]} $pg_bin/pg_ctl -D $data -l $workdir/server.log -w -t 60 -m fast restart"
timeout 300 swift test --package-path Sync --skip-build --filter ServerRestartTests
timeout 300 swift test --package-path Sync --skip-build --filter EngineRestartTests
