#!/usr/bin/env bash
# Coffer's one entry point for a fresh Debian machine (run as root):
#   bash scripts/dev.sh demo   — installs what is missing, then runs `coffer demo` on the default database
#   bash scripts/dev.sh test   — installs what is missing, then runs the whole test suite
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/system-packages.sh

command="${1:-}"
shift || true
case "$command" in
    demo) exec swift run coffer demo "$@" ;;
    test)
        swift test "$@"
        # CI also runs the checks that need their own builds (docs, sanitizers, fuzzing, bench smoke);
        # each lives in scripts/ci/ and can be run alone. Locally: CI=true bash scripts/dev.sh test.
        if [ -n "${CI:-}" ]; then
            for step in scripts/ci/*.sh; do
                [ -e "$step" ] || continue
                echo "== $step"
                bash "$step"
            done
        fi
        ;;
    *) echo "usage: bash scripts/dev.sh demo|test [arguments…]" >&2; exit 2 ;;
esac
