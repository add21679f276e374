#!/usr/bin/env bash
# Run one kind of test (unit | int) with Node's test runner. Node 20's --test does not expand globs itself.
# `int` runs test/int, then test/e2e, each two files at a time: every file starts its own nats-server and Postgres
# (or cluster, service and browsers) on free ports in its own temp dir, so files never share a process or a port.
# The runner takes files in the order given and starts the next one whenever one ends, so the slowest files
# (ops/slow-tests.txt) go first: the two lanes then end close together instead of waiting on one long file.
set -euo pipefail
cd "$(dirname "$0")/.."
run() {
  local conc="$1"
  shift
  node --import tsx --test --test-concurrency="$conc" --test-timeout=1200000 "$@"
}
# The files under $1 matching $2, the ones named in ops/slow-tests.txt first (in its order), then the rest sorted.
ordered() {
  local all slow
  all=$(find "$1" -name "$2" | sort)
  slow=$(grep -v '^#' ops/slow-tests.txt | grep -Fx -f <(printf '%s\n' "$all") || true)
  printf '%s\n' "$slow"
  printf '%s\n' "$all" | grep -Fvx -f <(printf '%s\n' "$slow" | grep . || echo '/nonexistent') || true
}
case "${1:-}" in
  # shellcheck disable=SC2046
  unit) run 2 $(find test/unit -name '*.unit.spec.ts' | sort) ;;
  int)
    # Both halves run, so one report shows every failure.
    status=0
    # shellcheck disable=SC2046
    run 2 $(ordered test/int '*.int.spec.ts') || status=1
    # shellcheck disable=SC2046
    run 2 $(ordered test/e2e '*.e2e.spec.ts') || status=1
    exit "$status"
    ;;
  *) echo "usage: $0 unit|int" >&2; exit 2 ;;
esac
