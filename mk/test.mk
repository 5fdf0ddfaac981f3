# SPDX-License-Identifier: MIT
# mk/test.mk — the Debian packages the tests need, and the tests in two
# tiers (docs/testing.md).  Each integration script declares its tier in a
# header line, "# tier: quick" or "# tier: full" (none: quick), read by
# tests/run.sh:
#   make check      the quick tier: what needs only Debian 12's packages
#                   (make deps): the unit tests, the fuzz corpora replayed,
#                   the quick scripts; two at a time, in minutes
#   make check-all  everything, what CI runs (.ci/run): also the full tier's
#                   scripts (the test bed's frameworks, the venvs, the
#                   packages' chroots), the sanitizer builds' unit tests, the
#                   fuzz targets for FUZZ_SECONDS each, and the Level Zero and
#                   Intel OpenCL scripts again on Intel's 2026 driver in the
#                   test bed (a Debian sid chroot; the library and test
#                   programs are built inside it into $(BUILD)-sid)
# Both set up what they need themselves and end with "N passed, N failed,
# N skipped".

FUZZ_SECONDS ?= 20

deps: ## install the Debian packages needed to build and run make check (uses sudo if not root)
	@./tests/install-deps.sh check

deps-all: ## install every Debian package: make deps, and those of make check-all and the benchmarks
	@./tests/install-deps.sh all

unit: $(UNIT_BIN) ## run the C unit tests (tests/unit: every room below shim/, and the OpenCL payload)
	@for t in $(UNIT_BIN); do $$t || exit 1; done

unit-build: $(UNIT_BIN)
fuzz-build: $(FUZZ_BIN)

check: deps ## the quick tier: install deps, build, run the unit tests, fuzz corpora and quick scripts (ends with "N passed, N failed")
	$(MAKE) tests examples fuzz-build
	BUILD=$(BUILD) TIER=quick FUZZ_SECONDS=0 ./tests/run.sh

check-all: deps-all sycl-env pyopencl-env tinygrad-env jupyter-env openvino-env testbed testbed-sycl testbed-openvino testbed-jax testbed-llama testbed-s3 wheel deb debroot ## set up and run every test, both tiers, both drivers (what CI runs)
	$(MAKE) tests examples fuzz-build
	$(MAKE) BUILD=$(BUILD)-asan SANITIZE=address,undefined unit-build
	$(MAKE) BUILD=$(BUILD)-tsan SANITIZE=thread unit-build
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	BUILD=$(BUILD) UNIT_BUILDS="$(BUILD) $(BUILD)-asan $(BUILD)-tsan" MODERN_BUILD=$(BUILD)-sid \
	  TIER=full FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/run.sh

check-modern: testbed testbed-sycl testbed-openvino testbed-jax testbed-llama ## only the tests on Intel's 2026 driver (test bed), in one tally
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	MODERN_BUILD=$(BUILD)-sid MODERN_ONLY=1 ./tests/run.sh

asan: ## run the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
	$(MAKE) BUILD=$(BUILD)-asan SANITIZE=address,undefined unit

tsan: ## run the unit tests (threaded paths) under ThreadSanitizer
	$(MAKE) BUILD=$(BUILD)-tsan SANITIZE=thread unit

fuzz: $(FUZZ_BIN) ## run each fuzz target for FUZZ_SECONDS (default 20)
	@for f in $(FUZZ_BIN); do n=$${f##*/fuzz_}; mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== fuzz $$n ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 $(BUILD)/fuzz/corpus-$$n tests/fuzz/corpus-$$n \
	    2>$(BUILD)/fuzz/$$n.log || { tail -n 40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
	  grep -E '^#[0-9]+.*DONE' $(BUILD)/fuzz/$$n.log | tail -n 1; done

sycl-check: deps-all sycl-env ## Intel's SYCL runtime, unmodified, under jitcache
	$(MAKE) lib
	BUILD=$(BUILD) ./tests/run.sh sycl
