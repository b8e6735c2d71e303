#!/usr/bin/env bash
# CI: keep coffer-bench building and running (tiny N; timing figures are not checked).
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product coffer-bench
.build/release/coffer-bench --smoke
