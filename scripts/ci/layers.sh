#!/usr/bin/env bash
# CI: the folder rule of Sources/Coffer — nothing under Core uses a type declared under
# Extensions or Maintenance (scripts/layers/check_layers.py says how it is checked).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/layers/check_layers.py
