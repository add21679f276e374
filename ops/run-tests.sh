#!/usr/bin/env bash
# Run one kind of test (unit | int) with Node's test runner. Node 20's --test does not expand globs itself.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="$1"
case "$kind" in
  unit) files=$(find test/unit -name '*.unit.spec.ts' | sort); conc=2 ;;
  int) files=$(find test/int test/e2e -name '*.int.spec.ts' -o -name '*.e2e.spec.ts' | sort); conc=1 ;;
  *) echo "usage: $0 unit|int" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
exec node --import tsx --test --test-concurrency="$conc" --test-timeout=1200000 $files
