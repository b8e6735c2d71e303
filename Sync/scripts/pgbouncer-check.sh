#!/usr/bin/env bash
# By hand, not in CI: runs this package's server tests through PgBouncer, as Docs/ScalingOut.md
# reports. Starts a throwaway cluster on loopback (as `postgres` when run as root, like
# scripts/ci/sync.sh), a PgBouncer in front of it that looks device roles up with auth_query,
# and `swift test` with COFFER_SYNC_TEST_ADMIN_URL pointing at PgBouncer; then removes both.
#   POOL_MODE=transaction (default) or session; extra arguments go to `swift test`.
# Some tests fail through PgBouncer by design, and the script still exits 0: in transaction
# pooling every listener test; in both modes the login-error tests (PgBouncer answers logins
# itself, with SQLSTATE 08P01), the schema tests (their scratch databases are not in
# pgbouncer.ini) and the close-while-paused proxy test (PgBouncer keeps the server session).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || missing+=(postgresql)
command -v pgbouncer >/dev/null || missing+=(pgbouncer)
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing ${missing[*]}…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
pg_bin="$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)"
pool_mode="${POOL_MODE:-transaction}"
swift build --build-tests

# PostgreSQL and PgBouncer both refuse to run as root.
as_owner=()
if [ "$(id -u)" = 0 ]; then
    as_owner=(runuser -u postgres --)
fi

workdir="$(mktemp -d /tmp/coffer-sync-pgbouncer.XXXXXX)"
data="$workdir/data"
cleanup() {
    if [ -f "$workdir/pgbouncer.pid" ]; then
        kill "$(cat "$workdir/pgbouncer.pid")" 2>/dev/null || true
    fi
    if [ -f "$data/postmaster.pid" ]; then
        "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] && chown postgres "$workdir"
chmod 700 "$workdir"

free_port() {
    local port="$1"
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((port + 1))
    done
    echo "$port"
}
port="$(free_port 55632)"
bouncer_port="$(free_port $((port + 1)))"

new_password() { head -c 18 /dev/urandom | base64 | tr -d '+/='; }
superuser_password="$(new_password)"
admin_password="$(new_password)"
lookup_password="$(new_password)"
printf '%s\n' "$superuser_password" >"$workdir/superuser-password"
# PgBouncer's own login to PostgreSQL, for auth_query; device roles are looked up, not listed.
printf '"pgbouncer_auth" "%s"\n' "$lookup_password" >"$workdir/userlist.txt"
chmod 600 "$workdir/superuser-password" "$workdir/userlist.txt"
[ "$(id -u)" = 0 ] && chown postgres "$workdir/superuser-password" "$workdir/userlist.txt"

"${as_owner[@]}" "$pg_bin/initdb" -D "$data" -U postgres --pwfile="$workdir/superuser-password" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$workdir/initdb.log" 2>&1 ||
    { cat "$workdir/initdb.log" >&2; exit 1; }
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$data" -l "$workdir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$workdir -c fsync=off" \
    start >/dev/null || { cat "$workdir/server.log" >&2; exit 1; }
psql_super() { "${as_owner[@]}" "$pg_bin/psql" -h "$workdir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
psql_super -d postgres <<SQL
CREATE ROLE coffer_admin LOGIN CREATEROLE CREATEDB PASSWORD '$admin_password';
GRANT pg_signal_backend TO coffer_admin;
CREATE ROLE pgbouncer_auth LOGIN PASSWORD '$lookup_password';
CREATE DATABASE coffer_sync_test OWNER coffer_admin;
SQL
psql_super -d coffer_sync_test <<'SQL'
CREATE FUNCTION public.pgbouncer_lookup(uname text, OUT usename name, OUT passwd text)
RETURNS record LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog
AS $$ SELECT usename, passwd FROM pg_catalog.pg_shadow WHERE usename = uname $$;
REVOKE ALL ON FUNCTION public.pgbouncer_lookup(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.pgbouncer_lookup(text) TO pgbouncer_auth;
SQL

cat >"$workdir/pgbouncer.ini" <<INI
[databases]
coffer_sync_test = host=127.0.0.1 port=$port dbname=coffer_sync_test

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $workdir/userlist.txt
auth_user = pgbouncer_auth
auth_query = SELECT usename, passwd FROM public.pgbouncer_lookup(\$1)
pool_mode = $pool_mode
max_client_conn = 500
default_pool_size = 5
logfile = $workdir/pgbouncer.log
pidfile = $workdir/pgbouncer.pid
INI
[ "$(id -u)" = 0 ] && chown postgres "$workdir/pgbouncer.ini"
"${as_owner[@]}" pgbouncer -d "$workdir/pgbouncer.ini"
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$bouncer_port") 2>/dev/null && break
    sleep 0.1
done
echo "PostgreSQL on port $port; PgBouncer ($pool_mode pooling) on port $bouncer_port"

export COFFER_SYNC_TEST_ADMIN_URL="postgres://coffer_admin:$admin_password@127.0.0.1:$bouncer_port/coffer_sync_test"
COFFER_SYNC_ADMIN_URL="$COFFER_SYNC_TEST_ADMIN_URL" swift run --skip-build coffer-sync init-server
timeout 300 swift test --skip-build "$@" || echo "(some tests failed through PgBouncer; see the header of this script)"
