# Herald: the two commands a newcomer needs are `make run` and `make test` (see README.md).
# Dependencies install with `npm install` (not `npm ci`): with npm 11 and omit-lockfile-registry-resolved,
# `npm ci` reports the other platforms' optional packages as missing from an in-sync lock file.
SHELL := /bin/bash
.DEFAULT_GOAL := help
SERVICES = vars="$$(scripts/ensure-services.sh)" && eval "$$vars"
export HERALD_DB_NAME ?= herald

.PHONY: help deps build run migrate test test-file test-unit lint typecheck codegen check-contract bench stop-services clean

help:
	@echo "make run    start Herald (api + scheduler + worker) with everything it needs"
	@echo "make test   run every check and test"
	@echo "            (one file: make test-file FILE=tests/integration/users.test.ts)"

node_modules/.installed: package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

deps: node_modules/.installed

build: deps
	npm run --silent build

codegen: deps
	npm run --silent codegen

check-contract: deps
	npm run --silent codegen:check

typecheck: deps
	npm run --silent typecheck

lint: deps
	npx eslint .
	npx redocly lint openapi.yaml --format=stylish 2>&1 | grep -v -i "deprecat\|node.js 2\|nodejs.org\|═\|║" ; test $${PIPESTATUS[0]} -eq 0

migrate: build
	@$(SERVICES) && node dist/src/cli.js migrate

run: build
	@$(SERVICES) && node dist/src/cli.js migrate && exec node dist/src/cli.js serve

# The tests also run a redis-server of their own (tests/integration/dependencies-down.test.ts) and
# curl (the README's examples, tests/process/readme.test.ts): ensure-services.sh installs them.
test test-file: export HERALD_TEST_TOOLS = 1

test: deps check-contract typecheck lint
	@HERALD_DB_NAME=postgres $(SERVICES) && npm run --silent test

# One test file (or several, or a Jest pattern), with the services `make test` uses; no lint/typecheck.
test-file: deps
	@test -n "$(FILE)" || { echo "usage: make test-file FILE=tests/integration/users.test.ts" >&2; exit 1; }
	@HERALD_DB_NAME=postgres $(SERVICES) && npm run --silent test -- $(FILE)

bench: build
	@$(SERVICES) && for b in scripts/bench/*.ts; do npx tsx $$b; done

stop-services:
	scripts/stop-services.sh

clean:
	rm -rf dist node_modules
