# Capture Ledger — the two commands (README): `make run` and `make test`. Both install what is missing.
SHELL := /bin/bash
export DATA_DIR ?= ./data

.PHONY: run cluster test test-unit test-int lint format bench build deps clean screenshots

# nginx is a test-only dependency (the load-balancer test): run, cluster and bench do not install it.
INSTALL_DEPS ?= test
run cluster bench build: INSTALL_DEPS := run
test test-unit test-int lint format screenshots: INSTALL_DEPS := test

deps:
	@INSTALL_DEPS=$(INSTALL_DEPS) bash ops/install-deps.sh

# tsc compiles every module to dist/ (the CLI, the tools); the service's entry is also bundled to dist/bundle/, which
# `make run` and `make cluster` start (ops/bundle-dist.ts). Also the offline verifier's two downloads (dist/verifier/;
# the service builds the same on first request).
build: deps
	@npx tsc -p tsconfig.json
	@node --import tsx ops/bundle-dist.ts
	@node -e "import('./dist/src/api/verifier-assets.js').then((m) => m.writeVerifierDownloads('dist/verifier'))"

run: build
	@bash ops/run.sh

# The scaled deployment on this machine: 3 clustered nats-servers, Postgres, every role its own process (docs/scaling.md).
cluster: build
	@node dist/src/cluster-main.js

# Formatting and lint first (biome.jsonc): an unformatted file or a lint error fails `make test`. Then the unit
# tests, then int and e2e, with the typecheck beside them at the lowest CPU priority (ops/run-tests.sh all): a type
# error fails `make test` once the tests have run.
test: deps
	@npx biome ci .
	@bash ops/run-tests.sh all

test-unit: deps
	@npm run --silent test:unit

test-int: deps
	@npm run --silent test:int

lint: deps
	@npx biome ci .

# Formats the tree and applies the linter's safe fixes.
format: deps
	@npx biome check --write .

# The storage bench runs radosgw like the tests (BENCH=storage, or no BENCH): install-deps adds it for that.
bench: build
	@INSTALL_DEPS=bench bash ops/install-deps.sh
	@node --import tsx bench/run.ts

# A PNG of every console page at 1280 and 390 px (README, Console), against a service started as the e2e starts it.
screenshots: deps
	@node --import tsx ops/console-screenshots.ts docs/console

clean:
	rm -rf dist
