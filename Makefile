# The two README commands (`make run`, `make test`) and their helpers.
SHELL := /bin/bash
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
PORT ?= 8443
CERT_DIR ?= certs/dev

# What the server binary needs (`make server`, the image's build stage), all from Debian's packages.
SERVER_PACKAGES := cmake make g++ pkg-config libboost-dev libssl-dev rapidjson-dev libcli11-dev \
	libyaml-cpp-dev liblua5.2-dev
# Everything the build, the tests and the benchmark need.
DEBIAN_PACKAGES := $(SERVER_PACKAGES) catch2 libbenchmark-dev openssl python3 python3-yaml curl \
	wrk libgnutls28-dev valgrind xz-utils nginx-light git pre-commit

.PHONY: all deps deps-server build server rootfs manifests test san-configure test-asan fuzz run certs bench soak \
	clean

all: build

# Installs only what is missing of the packages $(1), so a second run costs nothing; $(2) may
# add to $$missing.
define install_missing
	@missing=$$(for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	$(2) \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEBIAN_PACKAGES),command -v kubectl >/dev/null || missing="$$missing kubernetes-client";)

deps-server:
	$(call install_missing,$(SERVER_PACKAGES),)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DBUILD_TESTING=ON -DKPW_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)

# Only what `make run` runs, and `check` in a CI job: the server binary and the library under it,
# from the server's packages alone, none of the tests and benchmarks that `build` compiles too
# (a later `make build` or `make test` in the same folder turns them back on).
server: deps-server
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DBUILD_TESTING=OFF -DKPW_BENCH=OFF
	cmake --build $(BUILD) -j $(JOBS) --target karmada-policy-webhook

# The image's whole root filesystem (what the Dockerfile's runtime stage copies onto scratch) in
# $(BUILD)/rootfs: the server, its shared libraries and loader, /etc/passwd and /etc/group; the
# image test runs the server from it alone.
rootfs: server
	image/make-rootfs.sh --force $(BUILD)/karmada-policy-webhook $(BUILD)/rootfs

# The generated manifests (webhook configurations, the overlays' patches of their entries, CRD
# conversion patches) from the route table, written into manifests/ (docs/operations.md,
# "Manifests"); the manifests test fails while a committed one differs.
manifests: server
	$(BUILD)/karmada-policy-webhook manifests manifests

# The tests behind a real kube-apiserver (label apiserver) need its binaries: $$KUBEBUILDER_ASSETS,
# or ../shared/envtest beside the repository; without them they are skipped (one line each says
# how to get them). Their figures (faults, concurrency) are printed after the run.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j 2
	@test/e2e/show_output.py $(BUILD) --label apiserver

# One sanitizer build, for two uses: clang, AddressSanitizer + UndefinedBehaviorSanitizer (+
# LeakSanitizer) on everything, and libFuzzer's coverage instrumentation (KPW_FUZZ), so that
# `make test-asan` and `make fuzz` build the library once between them (CI runs both: two separate
# builds were 11 of its 33 minutes here, the shared one is 7). Line tables only (-g1): the
# sanitizers' stack traces keep their lines, the build is faster; -O1, as the sanitizers' own
# documents advise (Beast's templates build a third faster than at -O2, the tests ~15 % slower).
SAN_BUILD ?= build-asan
SAN_PACKAGES := clang libclang-rt-14-dev
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
san-configure: deps
	@missing=$$(for p in $(SAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	CC=clang CXX=clang++ cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPW_FUZZ=ON \
	  -DKPW_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"

# The whole suite again under the sanitizers, but for the tests behind a real kube-apiserver (label
# apiserver: minutes of the API server's own work, none of it ours; the same requests reach the
# sanitized binary through the other end-to-end tests) and every fixture over TLS (label
# release-only: the handlers see every fixture offline, the server is exercised by the other
# end-to-end tests); no benchmark programs.
test-asan: san-configure
	cmake --build $(SAN_BUILD) -j $(JOBS)
	ctest --test-dir $(SAN_BUILD) --output-on-failure -j 2 -LE 'apiserver|release-only'

# libFuzzer targets, each run for FUZZ_SECONDS after replaying past crash inputs.
FUZZ_SECONDS ?= 300
fuzz: san-configure
	cmake --build $(SAN_BUILD) -j $(JOBS) --target fuzz_review fuzz_patch fuzz_check_source fuzz_json \
	  fuzz_lua fuzz_watch_events fuzz_request_head
	test/fuzz/run.sh $(SAN_BUILD) $(FUZZ_SECONDS)

certs: deps
	certs/make-certs.sh $(CERT_DIR)

run: server certs
	@echo
	@echo "In another terminal, post a PropagationPolicy review and see the verdict:"
	@echo "  curl -s --cacert $(CERT_DIR)/ca.crt -H 'Content-Type: application/json' \\"
	@echo "    --data-binary @docs/examples/review-pp-denied.json \\"
	@echo "    'https://localhost:$(PORT)/validate-propagationpolicy?timeout=3s'; echo"
	@echo
	$(BUILD)/karmada-policy-webhook serve --bind-address 127.0.0.1 --secure-port $(PORT) \
	  --cert-dir $(CERT_DIR)

bench: build
	test/bench/run.sh $(BUILD)
	test/bench/check_bench.sh $(BUILD)

# MINUTES of mixed load, RSS and latency per minute (a benchmark, not a test).
MINUTES ?= 10
soak: build
	test/bench/soak.sh $(BUILD) $(MINUTES)

clean:
	rm -rf $(BUILD)
