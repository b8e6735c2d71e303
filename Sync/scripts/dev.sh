#!/usr/bin/env bash
# Trying CofferSync on a fresh Debian machine (run as root), with a throwaway PostgreSQL:
#   bash Sync/scripts/dev.sh demo — installs what is missing (Coffer's packages, PostgreSQL),
#       starts a PostgreSQL cluster on loopback in a temporary directory, applies the schema with
#       `coffer-sync init-server`, runs `coffer-sync demo` (two devices syncing through it), and
#       removes the cluster
#   bash Sync/scripts/dev.sh test — the sync package's whole test suite against such a cluster
#       (scripts/ci/sync.sh, which CI runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/system-packages.sh

command="${1:-}"
shift || true
case "$command" in
    demo)
        swift build --package-path Sync --product coffer-sync
        . Sync/scripts/throwaway-cluster.sh
        start_throwaway_cluster coffer-sync-demo-pg
        create_sync_database coffer_sync_demo
        export COFFER_SYNC_ADMIN_URL="$admin_url"
        swift run --package-path Sync --skip-build coffer-sync init-server
        swift run --package-path Sync --skip-build coffer-sync demo "$@"
        ;;
    test) exec bash scripts/ci/sync.sh "$@" ;;
    *) echo "usage: bash Sync/scripts/dev.sh demo|test [arguments…]" >&2; exit 2 ;;
esac
