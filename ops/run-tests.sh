#!/usr/bin/env bash
# Run one kind of test (unit | int) with Node's test runner. Node 20's --test does not expand globs itself.
# `int` runs test/int and test/e2e together, two files at a time: every file starts its own nats-server and
# Postgres (or cluster, service and browsers) on free ports in its own temp dir, so files never share a process
# or a port. The runner takes files in the order given and starts the next one whenever one ends, so the slowest
# files (ops/slow-tests.txt) go first: the two lanes then end close together instead of waiting on one long file.
set -euo pipefail
cd "$(dirname "$0")/.."
# test/support/assert-messages.ts: a failing assert.ok without a message fails at once, with a message of its own.
run() {
  node --import tsx --import ./test/support/assert-messages.ts --test --test-concurrency=2 --test-timeout=1200000 "$@"
}
# The spec files under the given folders: those named in ops/slow-tests.txt first, in its order, then the rest.
slowest_first() {
  local all
  all=$(find "$@" -name '*.spec.ts' | sort)
  grep -Fx -f <(printf '%s\n' "$all") ops/slow-tests.txt || true
  printf '%s\n' "$all" | grep -Fvx -f ops/slow-tests.txt || true
}
case "${1:-}" in
  # shellcheck disable=SC2046
  unit) run $(find test/unit -name '*.unit.spec.ts' | sort) ;;
  # shellcheck disable=SC2046
  int) run $(slowest_first test/int test/e2e) ;;
  *) echo "usage: $0 unit|int" >&2; exit 2 ;;
esac
