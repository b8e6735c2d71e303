#!/usr/bin/env bash
# Checks the failover that Docs/ScalingOut.md describes, on one machine: starts a throwaway
# primary and a hot standby streaming from it (pg_basebackup, standby.signal, primary_conninfo,
# synchronous with synchronous_commit = remote_apply), applies the schema on the primary with
# `coffer-sync init-server`, then runs ReplicaFailoverTests, which pushes rows through a device
# on the primary, reads them on the standby, stops the primary, promotes the standby with
# pg_promote() and has the same device pull every row and push more on it. Both clusters live
# under /tmp on free loopback ports (as the `postgres` user when run as root) and are always
# removed. About 30 s beyond building the package.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
    echo "Installing postgresql…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
pg_bin="$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)"

# Build first, so that the clusters only live as long as the check itself.
swift build --build-tests

as_owner=()
if [ "$(id -u)" = 0 ]; then
    as_owner=(runuser -u postgres --)
fi

workdir="$(mktemp -d /tmp/coffer-sync-replica.XXXXXX)"
primary="$workdir/primary"
standby="$workdir/standby"
cleanup() {
    for data in "$standby" "$primary"; do
        if [ -f "$data/postmaster.pid" ]; then
            "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] && chown postgres "$workdir"
chmod 700 "$workdir"

# The first free port from $1 (other worktrees' runs may hold some).
free_port() {
    local port="$1"
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((port + 1))
    done
    echo "$port"
}
primary_port="$(free_port 55532)"
standby_port="$(free_port $((primary_port + 1)))"

new_password() { head -c 18 /dev/urandom | base64 | tr -d '+/='; }
superuser_password="$(new_password)"
admin_password="$(new_password)"
replicator_password="$(new_password)"
# Passwords go through files only the cluster's owner reads, never through command lines.
printf '%s\n' "$superuser_password" >"$workdir/superuser-password"
printf '127.0.0.1:%s:replication:coffer_replicator:%s\n' "$primary_port" "$replicator_password" >"$workdir/pgpass"
chmod 600 "$workdir/superuser-password" "$workdir/pgpass"
[ "$(id -u)" = 0 ] && chown postgres "$workdir/superuser-password" "$workdir/pgpass"

# Settings every server of the pair gets on its command line (not in postgresql.conf, which
# pg_basebackup would copy to the standby).
server_options() {
    echo "-c listen_addresses=127.0.0.1 -c port=$1 -c unix_socket_directories=$workdir -c fsync=off"
}
start() {
    "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$1" -l "$workdir/$(basename "$1").log" -w -t 60 \
        -o "$(server_options "$2")" start >/dev/null ||
        { cat "$workdir/$(basename "$1").log" >&2; exit 1; }
}
psql_on() {
    local port="$1"
    shift
    "${as_owner[@]}" "$pg_bin/psql" -h "$workdir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt "$@"
}

# The primary: initdb's defaults already stream WAL (wal_level = replica, max_wal_senders = 10)
# and its pg_hba.conf lets the replication pseudo-database in from 127.0.0.1 with SCRAM.
"${as_owner[@]}" "$pg_bin/initdb" -D "$primary" -U postgres --pwfile="$workdir/superuser-password" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$workdir/initdb.log" 2>&1 ||
    { cat "$workdir/initdb.log" >&2; exit 1; }
start "$primary" "$primary_port"
# pg_promote() is for superusers unless granted: the test promotes as the admin role.
psql_on "$primary_port" <<SQL
CREATE ROLE coffer_replicator LOGIN REPLICATION PASSWORD '$replicator_password';
CREATE ROLE coffer_admin LOGIN CREATEROLE PASSWORD '$admin_password';
GRANT EXECUTE ON FUNCTION pg_promote(boolean, integer) TO coffer_admin;
CREATE DATABASE coffer_sync_test OWNER coffer_admin;
SQL

# The standby: a base backup streamed from the primary; -R writes standby.signal and a
# primary_conninfo from the connection string (which names the password file, not a password).
"${as_owner[@]}" env PGPASSFILE="$workdir/pgpass" "$pg_bin/pg_basebackup" -D "$standby" -X stream -c fast -R -w \
    -d "host=127.0.0.1 port=$primary_port user=coffer_replicator application_name=coffer_standby passfile=$workdir/pgpass" \
    >"$workdir/basebackup.log" 2>&1 || { cat "$workdir/basebackup.log" >&2; exit 1; }
start "$standby" "$standby_port"

# Synchronous from now on (set after the base backup, so the standby does not inherit it and
# wait for a standby of its own once promoted): a commit returns once the standby applied it.
psql_on "$primary_port" <<SQL
ALTER SYSTEM SET synchronous_standby_names = 'coffer_standby';
ALTER SYSTEM SET synchronous_commit = 'remote_apply';
SELECT pg_reload_conf();
SQL
for _ in $(seq 1 300); do
    state="$(psql_on "$primary_port" -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'coffer_standby'")"
    [ "$state" = sync ] && break
    sleep 0.1
done
[ "$state" = sync ] || { echo "the standby never became synchronous (state: '$state')" >&2; cat "$workdir/standby.log" >&2; exit 1; }
echo "primary on port $primary_port, synchronous standby on port $standby_port"

COFFER_SYNC_ADMIN_URL="postgres://coffer_admin@127.0.0.1:$primary_port/coffer_sync_test" \
    COFFER_SYNC_ADMIN_PASSWORD="$admin_password" swift run --skip-build coffer-sync init-server

export COFFER_SYNC_TEST_REPLICA_URLS="postgres://coffer_admin:$admin_password@127.0.0.1:$primary_port/coffer_sync_test postgres://coffer_admin:$admin_password@127.0.0.1:$standby_port/coffer_sync_test"
export COFFER_SYNC_TEST_REPLICA_STOP_PRIMARY="${as_owner[*]} $pg_bin/pg_ctl -D $primary -m fast -w -t 60 stop"
timeout 300 swift test --skip-build --filter ReplicaFailoverTests "$@"
