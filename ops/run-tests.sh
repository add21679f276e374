#!/usr/bin/env bash
# Run one kind of test (unit | int) with Node's test runner. Node 20's --test does not expand globs itself.
# `int` runs test/int two files at a time (each starts its own nats-server and Postgres on free ports), then
# test/e2e one at a time: the end-to-end files start clusters, whole services and browsers, and kill them.
set -euo pipefail
cd "$(dirname "$0")/.."
run() {
  local conc="$1"
  shift
  node --import tsx --test --test-concurrency="$conc" --test-timeout=1200000 "$@"
}
case "${1:-}" in
  # shellcheck disable=SC2046
  unit) run 2 $(find test/unit -name '*.unit.spec.ts' | sort) ;;
  # shellcheck disable=SC2046
  int)
    # Both halves run, so one report shows every failure.
    status=0
    run 2 $(find test/int -name '*.int.spec.ts' | sort) || status=1
    # shellcheck disable=SC2046
    run 1 $(find test/e2e -name '*.e2e.spec.ts' | sort) || status=1
    exit "$status"
    ;;
  *) echo "usage: $0 unit|int" >&2; exit 2 ;;
esac
