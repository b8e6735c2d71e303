#!/usr/bin/env bash
# CI: the failover check of Sync/Docs/ScalingOut.md — a throwaway primary and a synchronous
# hot standby, rows pushed on the primary, the standby promoted, and the same device pulling
# every row with the same sequence numbers and pushing more on it. See Sync/scripts/replica-check.sh.
# About 30 s beyond building the Sync package.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash Sync/scripts/replica-check.sh "$@"
