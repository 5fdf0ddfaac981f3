# SPDX-License-Identifier: MIT
# mk/bench.mk — the benchmarks (bench/): `make bench` runs them all and
# writes bench/results.md; each bench-* target runs one family's rows.

bench: deps-all openvino-env pyopencl-env testbed testbed-sycl testbed-openvino testbed-jax testbed-llama testbed-s3 ## run the benchmarks and write bench/results.md
	$(MAKE) tests examples $(BENCH_BIN)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	BUILD=$(BUILD) MODERN_BUILD=$(BUILD)-sid ./bench/run.sh

bench-modern: testbed testbed-sycl ## only the 2026 driver's rows (cold / NEO's cache / jitcache / both / floor)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	rm -rf $(BUILD)/bench/modern && mkdir -p $(BUILD)/bench/modern
	./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/modern.sh $(BUILD)/bench/modern
	python3 bench/report.py $(BUILD)/bench/modern - --modern-only

bench-sycl: testbed testbed-sycl ## only the SYCL and oneDNN rows on the 2026 driver (bench/modern_sycl.sh)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	rm -rf $(BUILD)/bench/modern-sycl && mkdir -p $(BUILD)/bench/modern-sycl
	./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/modern_sycl.sh $(BUILD)/bench/modern-sycl

PYOPENCL_BENCH_FILES ?= test_algorithm.py test_arrays_in_structs.py test_clmath.py test_clrandom.py test_enqueue_copy.py test_wrapper.py
bench-pocl: deps-all pyopencl-env ## only PoCL's rows: pyopencl's six test files of issue 26 and clFFT-client, every way, idle and busy (bench/pocl.sh, ~1.5 h)
	$(MAKE) lib admin
	rm -rf $(BUILD)/bench/pocl && mkdir -p $(BUILD)/bench/pocl
	BUILD=$(BUILD) PYOPENCL_BENCH_FILES="$(PYOPENCL_BENCH_FILES)" bash bench/pocl.sh $(BUILD)/bench/pocl

bench-pyopencl: pyopencl-env ## only pyopencl's six test files on PoCL, every way, idle and busy (bench/pocl.sh)
	$(MAKE) lib admin
	rm -rf $(BUILD)/bench/pyopencl && mkdir -p $(BUILD)/bench/pyopencl
	BUILD=$(BUILD) POCL_BENCH_WORKLOADS=pyopencl PYOPENCL_BENCH_FILES="$(PYOPENCL_BENCH_FILES)" \
		bash bench/pocl.sh $(BUILD)/bench/pyopencl

bench-openvino: openvino-env testbed testbed-openvino ## only OpenVINO's rows, Debian 12 and the 2026 driver (bench/openvino.sh)
	$(MAKE) lib admin
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	rm -rf $(BUILD)/bench/openvino && mkdir -p $(BUILD)/bench/openvino
	BUILD=$(BUILD) bash bench/openvino.sh $(BUILD)/bench/openvino
	./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/openvino.sh $(BUILD)/bench/openvino

bench-jax: testbed testbed-jax ## only JAX's rows on the 2026 driver (bench/jax.sh)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	rm -rf $(BUILD)/bench/jax && mkdir -p $(BUILD)/bench/jax
	./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/jax.sh $(BUILD)/bench/jax

bench-soundness: testbed ## only the key soundness cases, Debian 12's driver and the 2026 driver (bench/soundness.sh, ~2 min)
	$(MAKE) tests examples && ./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	BUILD=$(BUILD) bash bench/soundness.sh $(BUILD)/bench/soundness && ./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/soundness.sh $(BUILD)/bench/soundness

bench-llama: testbed testbed-llama ## only llama.cpp's and ollama's rows, the eight-target pack, and an A380's first run through a registry, on the 2026 driver (bench/llama.sh)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	rm -rf $(BUILD)/bench/llama && mkdir -p $(BUILD)/bench/llama
	./bench/registry_run.sh ./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/llama.sh $(BUILD)/bench/llama

bench-web: deps-all testbed testbed-s3 ## only the remote tiers' rows: hit latency by tier (local, layer, Redis, HTTP, S3), first run from a signed pack, a cold run with a web remote (bench/web.sh)
	$(MAKE) tests examples $(BENCH_BIN)
	rm -rf $(BUILD)/bench/web && mkdir -p $(BUILD)/bench/web
	BUILD=$(BUILD) bash bench/web.sh $(BUILD)/bench/web | tee $(BUILD)/bench/web/web.txt

sycl-bench: sycl-env ## SYCL workload cold vs warm: no cache, SYCL's cache, jitcache
	$(MAKE) lib
	./examples/sycl/bench.sh

bench-idle: all ## only what jitcache costs a process that never compiles (bench/idle.sh, ~1 min)
	BUILD=$(BUILD) bash bench/idle.sh $(BUILD)/bench/idle

bench-apps: deps-all tinygrad-env ## hashcat, ffmpeg, pyopencl, tinygrad and OpenCV's T-API on PoCL: none / jitcache / their own cache / PoCL's / both (bench/apps.sh)
	$(MAKE) lib admin
	rm -rf $(BUILD)/bench/apps && mkdir -p $(BUILD)/bench/apps
	BUILD=$(BUILD) bash bench/apps.sh $(BUILD)/bench/apps

bench-hit: all $(BUILD)/bench/ze_bench $(BUILD)/bench/tier_latency ## only a hit's own cost by tier against the driver's native load (bench/hit.sh, ~0.5 min)
	BUILD=$(BUILD) bash bench/hit.sh $(BUILD)/bench/hit | tee $(BUILD)/bench/hit.txt

bench-fleet: deps-all testbed-s3 tests ## a driver rollout on N simulated nodes (FLEET_NODES, "4 16 64"; FLEET_NETNS=1: a network namespace each, FLEET_DELAY_MS) against Redis, nginx and radosgw, plotted in fleet.png (bench/fleet.sh, ~15 min)
	rm -rf $(BUILD)/bench/fleet && mkdir -p $(BUILD)/bench/fleet
	BUILD=$(BUILD) bash bench/fleet.sh $(BUILD)/bench/fleet | tee $(BUILD)/bench/fleet/fleet.txt
