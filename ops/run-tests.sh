#!/usr/bin/env bash
# Run one kind of test (unit | int | all) with Node's test runner. Node 20's --test does not expand globs itself.
# `int FILE…` runs only the files given, as `int` runs them (e.g. to time one file as make test runs it).
# `int` runs test/int and test/e2e together, three files at a time (CL_TEST_CONCURRENCY): every file starts its own nats-server and
# Postgres (or cluster, service and browsers) on free ports in its own temp dir, so files never share a process
# or a port. Most of a file's time is waiting (for a browser, a capture, a cluster to elect, a timeout it tests):
# two at a time kept about one core of a 2-core machine busy (the run's CPU over its wall time), three keep both. The
# runner takes files in the order given and starts the next one whenever one ends, so the slowest files
# (ops/slow-tests.txt) go first: the lanes then end close together instead of waiting on one long file.
# `all` (make test) runs unit, then int, with the typecheck beside them at the lowest CPU priority: it takes the
# CPU time the test files leave idle, and its errors fail the run once the tests have run.
# `int` and `all` first bundle the service's and the CLI's entries with esbuild (ops/bundle-dist.ts), once, into a
# folder of the run under dist/ (inside the checkout, so the bundle's external packages resolve in node_modules),
# named in CL_TEST_BUNDLE_DIR: the service, cluster role and CLI processes the tests start run from it instead of
# compiling the sources through tsx each time (test/support/service-entry.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
# The run's own temp dir, removed when it ends. In it, one initialised Postgres data directory for the whole run,
# copied for each test's own Postgres instead of running initdb every time (test/support/pg-template.ts).
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/cl-test-run-XXXXXX")
export CL_TEST_PG_TEMPLATE_DIR="$run_dir/pg-template"
typecheck_pid=''
bundle_dir=''
cleanup() {
  if [ -n "$typecheck_pid" ]; then kill "$typecheck_pid" 2>/dev/null || true; fi
  rm -rf "$run_dir"
  if [ -n "$bundle_dir" ]; then rm -rf "$bundle_dir"; fi
}
trap cleanup EXIT
# test/support/assert-messages.ts: a failing assert.ok without a message fails at once, with a message of its own.
run() {
  node --import tsx --import ./test/support/assert-messages.ts --test --test-concurrency="${CL_TEST_CONCURRENCY:-3}" \
    --test-timeout=1200000 "$@"
}
# Files that make the whole host busy on purpose (busy loops in sessions of their own hold every core): they run
# alone after the others, so that no other file is slowed by them or fails a wait because of them.
SOLO='test/e2e/overload.e2e.spec.ts'
# The spec files under the given folders but not SOLO: those named in ops/slow-tests.txt first, in its order, then
# the rest.
slowest_first() {
  local all
  all=$(find "$@" -name '*.spec.ts' | sort | grep -Fvx "$SOLO")
  grep -Fx -f <(printf '%s\n' "$all") ops/slow-tests.txt || true
  printf '%s\n' "$all" | grep -Fvx -f ops/slow-tests.txt || true
}
unit_files() {
  find test/unit -name '*.unit.spec.ts' | sort
}
# The unit files run in two processes, not one each: starting a process and loading the sources costs more than
# most unit files' tests, and unit tests start no servers or children of their own. Each process imports every
# other file (by its absolute path) from an entry written into the run's temp dir; a failure's location still
# names its own file.
unit_entries() {
  local entries=("$run_dir/unit-a.mjs" "$run_dir/unit-b.mjs") i=0 f
  : >"${entries[0]}"
  : >"${entries[1]}"
  for f in $(unit_files); do
    echo "import '$PWD/$f';" >>"${entries[$((i % 2))]}"
    i=$((i + 1))
  done
  printf '%s\n' "${entries[@]}"
}
build_test_bundle() {
  mkdir -p dist
  bundle_dir=$(mktemp -d "$PWD/dist/test-bundle-XXXXXX")
  node --import tsx ops/bundle-dist.ts --cli "$bundle_dir"
  export CL_TEST_BUNDLE_DIR="$bundle_dir"
}
case "${1:-}" in
  # shellcheck disable=SC2046
  unit) run $(unit_entries) ;;
  int)
    build_test_bundle
    shift
    if [ "$#" -gt 0 ]; then run "$@"; else
      # shellcheck disable=SC2046
      run $(slowest_first test/int test/e2e) && run $SOLO
    fi
    ;;
  all)
    build_test_bundle
    typecheck_log="$run_dir/typecheck.log"
    nice -n 19 node_modules/.bin/tsc -p tsconfig.test.json >"$typecheck_log" 2>&1 &
    typecheck_pid=$!
    status=0
    # shellcheck disable=SC2046
    run $(unit_entries) || status=$?
    # shellcheck disable=SC2046
    if [ "$status" -eq 0 ]; then run $(slowest_first test/int test/e2e) || status=$?; fi
    if [ "$status" -eq 0 ]; then run $SOLO || status=$?; fi
    # The tests have run: the typecheck no longer waits behind them. On a host held busy by other work a
    # nice-19 process gets almost no CPU, so it is given the normal priority back (root may; otherwise it stays
    # low), and after a failed test it is not waited for at all: the run has failed already.
    if [ "$status" -ne 0 ]; then
      kill "$typecheck_pid" 2>/dev/null || true
      wait "$typecheck_pid" 2>/dev/null || true
      typecheck_pid=''
      exit "$status"
    fi
    renice -n 0 -p "$typecheck_pid" >/dev/null 2>&1 || true
    if ! wait "$typecheck_pid"; then
      cat "$typecheck_log" >&2
      echo "typecheck (tsc -p tsconfig.test.json) failed" >&2
      status=1
    fi
    typecheck_pid=''
    exit "$status"
    ;;
  *) echo "usage: $0 unit | int [FILE…] | all" >&2; exit 2 ;;
esac
