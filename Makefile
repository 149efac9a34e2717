# The two entry points of the README: `make run` and `make test`. Both install what is missing first.
.PHONY: setup run test build lint generated runtime-sources secgen-timings bench check-apple-program check-consumer docs \
	install install-sync check-ordinary-user

HEADERS := Sources/Keychain/Headers
SECGEN_INPUTS := $(foreach header,$(sort $(wildcard $(HEADERS)/*.h)),--header $(header)) \
	--api-notes $(HEADERS)/Security.apinotes --strict

setup:
	@scripts/setup.sh

# The main job: every example written with the raw API and with the DSL, run both ways on fresh
# stores, compared in a table (exits non-zero if any pair differs).
# The binary is run directly: `swift run` after `swift build` plans the graph again and reruns the
# secgen plugin (22 s for nothing, issue 52).
run: setup
	swift build --product keychain-examples
	"$$(swift build --show-bin-path)/keychain-examples"

build: setup
	@swift build --build-tests 2>&1 | tee .build-output.log | grep -vE '^\[|^Building|^Compiling|^Write|^Planning' || true
	@if grep -E '^/.*/(Sources|Tests|Examples)/.*(warning|error):' .build-output.log; then \
	  echo "build: the project's own code has warnings or errors"; rm -f .build-output.log; exit 1; fi
	@rm -f .build-output.log

lint:
	swift format lint --strict -r Sources Generator Plugins Tests Examples Benchmarks Package.swift

# The benchmark: C baseline, raw Security, the DSL and the DSL through keychaind interleaved; writes
# benchmark-results/.
# KEYCHAIN_BRIDGE_BENCH_LONG=1 adds the 1M-item store.
# The tools, built for release and installed into $(DESTDIR)$(PREFIX)/bin: `security` and `keychaind`
# (a minute or two cold), and with install-sync `security-sync` (`security sync-group`), which links
# the PostgreSQL client and takes several minutes. CONFIGURATION=debug installs debug builds.
PREFIX ?= /usr/local
CONFIGURATION ?= release
INSTALL_DIR = $(DESTDIR)$(PREFIX)/bin

# Installed programs link Swift's runtime and Foundation statically, in a build folder of their
# own (the flag would otherwise rebuild .build/release for the benchmark each time): a shell loop
# runs `security` as often as secret-tool, and the dynamic loader's symbol binding across the
# Swift libraries was half of its start-up (13.6 ms a call against secret-tool's 11.2; 8.6 static).
INSTALL_BUILD = swift build -c $(CONFIGURATION) --static-swift-stdlib --scratch-path .build-install
install: setup
	$(INSTALL_BUILD) --product security
	$(INSTALL_BUILD) --product keychaind
	install -d $(INSTALL_DIR)
	install -m 0755 .build-install/$(CONFIGURATION)/security .build-install/$(CONFIGURATION)/keychaind $(INSTALL_DIR)/

install-sync: setup
	$(INSTALL_BUILD) --product security-sync
	install -d $(INSTALL_DIR)
	install -m 0755 .build-install/$(CONFIGURATION)/security-sync $(INSTALL_DIR)/

bench: setup
	swift build -c release --product keychain-bench
	@# The agent rows start the keychaind built beside the benchmark.
	swift build -c release --product keychaind
	.build/release/keychain-bench

# The Swift the build plugin generates, written to generated/ for a person to read.
generated: setup
	swift run secgen generate $(SECGEN_INPUTS) --templates Templates --output generated
	@echo "generated/: $$(ls generated | tr '\n' ' ')"

# The Security module's constants, status codes, schema and option sets: secgen renders them from
# the headers and the runtime's definitions with Templates/Runtime. They are committed, so that
# Security builds without libclang; RuntimeSourcesTests fails when they are stale.
DEFINITIONS := Sources/Security/Definitions/SecItemDefinitions.c
runtime-sources: setup
	swift run secgen generate $(SECGEN_INPUTS) --definitions $(DEFINITIONS) --templates Templates/Runtime \
	  --output Sources/Security/Generated
	swift format -i Sources/Security/Generated/*.swift

# secgen's parse, model and render times for the full header set, in release mode.
secgen-timings: setup
	swift build -c release --product secgen
	.build/release/secgen generate $(SECGEN_INPUTS) --templates Templates --output .build/secgen-timings --timings

check-apple-program: build
	scripts/check-apple-program.sh

# Every flow a user runs, as an ordinary user (created when run as root, as CI is): the agent, the
# Secret Service with real clients, the security tool, Apple-API programs, the articles' blocks.
check-ordinary-user: build
	scripts/check-ordinary-user.sh "$$(swift build --show-bin-path)"

# A package depending on Keychain as a user's would, built where no pkg-config file for libclang
# exists. (swift-certificates with Security: Tests/InteropTests, in the main build.)
check-consumer: setup
	scripts/check-consumer.sh

# The DocC catalogs of Security (with the specification's rules as articles), Keychain and
# KeychainSync; any documentation warning fails. One invocation for the three: the plugin builds
# the symbol graphs once (45 s instead of 86 s on this 2-core VM).
docs: setup
	swift package --disable-sandbox generate-documentation --target Security --target Keychain \
	  --target KeychainSync --target LocalAuthentication --warnings-as-errors

# The whole suite: warnings-free build, format lint, unit tests, then the end-to-end checks.
# Each step's time is printed (`time`, hence bash): CI's budget is 20 minutes on 2 cores.
test: SHELL := /bin/bash
# The steps after `build` use what it built: another `swift build`, `swift test` or `swift run`
# plans again and rebuilds part of the graph with other flags (15-25 s each on this VM).
test: build lint
	time swift test --skip-build
	@# The rule suites again, every temporary store served by a keychaind of its own (issue 31).
	@# Skipped there: the agent's own suites and the contract suites (they already run every store),
	@# and the suites about the embedded store's files and processes (opening, tampering, kills,
	@# full disks, its log, its backend), which open their stores themselves.
	time KEYCHAIN_BRIDGE_TEST_STORE=agent swift test --skip-build --filter SecurityTests \
	  --skip 'AgentTests|StoreContract|ChangeFeedContract|ReliabilityTests|FullDisk|KeyFileTampering|StoreOpening|StorageDifferential|StoreLogging|TamperedColumns|RandomTampering|SecurityBackendInstallation|PassphraseBytes'
	time "$$(swift build --show-bin-path)/keychain-examples"
	time scripts/check-apple-program.sh
	time scripts/check-ordinary-user.sh "$$(swift build --show-bin-path)"
	@# Side by side: the consumer builds in its own folder (two cores of C, mostly), the catalogs
	@# convert on about one core, and neither touches what the other writes.
	time $(MAKE) --no-print-directory --output-sync=target -j2 check-consumer docs
