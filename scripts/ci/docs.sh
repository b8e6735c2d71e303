#!/usr/bin/env bash
# CI: build the DocC catalog (Sources/Coffer/Coffer.docc) and fail on any DocC warning — broken
# symbol links, undocumented parameters, bad doc-comment markup.
# The documentation plugin is resolved only when COFFER_DOCS is set (see Package.swift); a
# separate scratch path keeps the regular .build untouched.
set -euo pipefail
cd "$(dirname "$0")/../.."
COFFER_DOCS=1 swift package --scratch-path .build-docs \
    generate-documentation --target Coffer --warnings-as-errors
