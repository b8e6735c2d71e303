#!/usr/bin/env bash
# Installs the Debian packages Coffer builds against when any is missing (run as root on a fresh
# machine): SQLCipher, zlib, OpenSSL, pkg-config. Used by scripts/dev.sh and Sync/scripts/dev.sh.
set -euo pipefail

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
