#!/usr/bin/env bash
# Coffer's one entry point for a fresh Debian machine (run as root):
#   bash scripts/dev.sh demo   — installs what is missing, then runs `coffer demo` on the default database
#   bash scripts/dev.sh test   — installs what is missing, then runs the whole test suite
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libsqlcipher-dev sqlcipher zlib1g-dev libssl-dev pkg-config)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing ${missing[*]}…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

command="${1:-}"
shift || true
case "$command" in
    demo) exec swift run coffer demo "$@" ;;
    test) exec swift test "$@" ;;
    *) echo "usage: bash scripts/dev.sh demo|test [arguments…]" >&2; exit 2 ;;
esac
