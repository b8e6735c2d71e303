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

# Built first, so that a long first build does not hold a running cluster.
swift build -c release --product coffer-sync
swift build -c release --product coffer-sync-bench
bin="$(swift build -c release --show-bin-path)"

. scripts/throwaway-cluster.sh
start_throwaway_cluster coffer-sync-bench-pg
create_sync_database coffer_sync_bench
export COFFER_SYNC_BENCH_ADMIN_URL="$admin_url"
COFFER_SYNC_ADMIN_URL="$COFFER_SYNC_BENCH_ADMIN_URL" "$bin/coffer-sync" init-server
echo "# server: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, fsync=off"
echo "# uptime: $(uptime)"
COFFER_SYNC_BENCH_SERVER_PID="$(head -n 1 "$data/postmaster.pid")" "$bin/coffer-sync-bench" "$@"
echo "# uptime: $(uptime)"
