#!/usr/bin/env bash
# Installs what the tests need, idempotently: each ensure-*.sh checks before it installs.
set -euo pipefail
cd "$(dirname "$0")/.."
for s in scripts/ensure-*.sh; do
  bash "$s"
done
