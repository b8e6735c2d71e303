#!/usr/bin/env bash
# By hand, not in CI: the sync benchmark (coffer-sync-bench, workloads S1-S3; BENCHMARKS.md
# "Sync (issue 26)"). Starts a throwaway PostgreSQL cluster on a free loopback port exactly as
# scripts/ci/sync.sh does (as `postgres` when run as root; fsync off), creates an admin role,
# applies the schema with `coffer-sync init-server`, builds and runs the release benchmark
# against it with the postmaster's pid for the server CPU figure, and always removes the cluster.
#   bash Sync/scripts/bench.sh              full size (S1 100,000 rows, S2 60 samples, S3 60 s)
#   bash Sync/scripts/bench.sh --smoke      tiny sizes, a quick check
# Extra arguments go to coffer-sync-bench (see `coffer-sync-bench --help`).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
    echo "Installing postgresql…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
pg_bin="$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)"

# Built first, so that a long first build does not hold a running cluster.
swift build -c release --product coffer-sync
swift build -c release --product coffer-sync-bench
bin="$(swift build -c release --show-bin-path)"

# As root the cluster belongs to `postgres`; as anyone else, to the caller.
as_owner=()
if [ "$(id -u)" = 0 ]; then
    as_owner=(runuser -u postgres --)
fi

# In /tmp, not $TMPDIR: the `postgres` user must be able to reach it (and the socket path
# must stay under 108 bytes).
workdir="$(mktemp -d /tmp/coffer-sync-bench-pg.XXXXXX)"
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
psql_super -d postgres <<SQL
CREATE ROLE coffer_admin LOGIN CREATEROLE PASSWORD '$admin_password';
CREATE DATABASE coffer_sync_bench OWNER coffer_admin;
SQL

export COFFER_SYNC_BENCH_ADMIN_URL="postgres://coffer_admin:$admin_password@127.0.0.1:$port/coffer_sync_bench"
COFFER_SYNC_ADMIN_URL="$COFFER_SYNC_BENCH_ADMIN_URL" "$bin/coffer-sync" init-server
echo "# server: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, fsync=off"
echo "# uptime: $(uptime)"
COFFER_SYNC_BENCH_SERVER_PID="$(head -n 1 "$data/postmaster.pid")" "$bin/coffer-sync-bench" "$@"
echo "# uptime: $(uptime)"
