# jitcache — build, test, demo and install.   `make help` lists the targets.
#
# Layout (docs/design.md): the rooms, each calling only those below it:
# shim/ (interposed entry points: what both APIs share; shim/ze/ Level
# Zero, shim/cl/ OpenCL), key/ (requests and their keys), cache/ (the
# cache as the shim sees it: lookups and stores across the tiers, compile
# once, recipes, export and import), tiers/ (read-only layers, Redis,
# archives), store/ (the local on-disk store), trust/ (signing and
# verifying), config/ (settings and logging).  Every .c file of them goes
# into build/libjitcache.so; cache/, tiers/, store/, trust/ and config/
# also form build/libjccore.a, which the admin tool links, and key/
# build/libjckey.a, which the unit tests and benchmarks link beside it.
#
# `make` (and `make install`) builds only the library and the admin tool,
# which need only libzstd-dev, libxxhash-dev, libinih-dev, libhiredis-dev, libsodium-dev and
# opencl-c-headers.  The
# examples and tests are GPU programs that need Intel's driver, OpenCL and
# oneDNN: `make examples` and `make tests` (and check, demo, bench) build them.
# Commands are shown as "CC file"; V=1 shows them whole.

PREFIX     ?= /usr/local
DESTDIR    ?=
LIBDIR     ?= $(PREFIX)/lib
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/jitcache
MANDIR     ?= $(PREFIX)/share/man

CC       ?= cc
V        ?=
Q        := $(if $(V),,@)
MAKEFLAGS += --no-print-directory
BUILD    ?= build
SANITIZE ?=
WERROR   ?= -Werror

# The one version: the library's soname (its major number), `jitcache
# --version` (through jitcache-admin) and the string in the library.
VERSION      := 1.0.0
SONAME_MAJOR := $(firstword $(subst ., ,$(VERSION)))
LIBNAME      := libjitcache.so
SONAME       := $(LIBNAME).$(SONAME_MAJOR)
# The wheel's distribution name, free on PyPI (`jitcache` there is another
# project); its package and command are `jitcache`.  README.md and
# docs/install.md name it (tests/integration/docs.sh checks they do, wheel.sh
# that the wheel's metadata does).
WHEEL_NAME   := jitcache-gpu

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wcast-qual -Wwrite-strings -Wformat=2 \
        -Wundef -Wvla -Wno-unused-parameter $(WERROR)

CFLAGS   ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
              -D_GNU_SOURCE -DJC_HAVE_ZSTD -DJC_VERSION='"$(VERSION)"' -I. -pthread
# hiredis (the remote tier) is linked statically: the library lives inside
# other programs, and a host with its own hiredis of another version must not
# have its calls bound to ours (the version script, build/exports.map, keeps
# every hiredis name hidden).
LDLIBS_CORE := -linih -lzstd -l:libhiredis.a -l:libsodium.a -ldl -pthread
# The preloaded library links inih and zstd statically too: every process
# of a user who leaves jitcache on maps it, and each shared library more
# costs each of them its loading, relocations and page faults (~0.3 ms of
# CPU per process for these two, measured: bench/idle.sh, issue 37).
LDLIBS_PRELOAD := -l:libinih.a -l:libzstd.a -l:libhiredis.a -l:libsodium.a -ldl -pthread

ifneq ($(SANITIZE),)
  SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS    += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(SAN_CFLAGS)

CORE_SRC := $(wildcard cache/*.c tiers/*.c store/*.c trust/*.c config/*.c)
KEY_SRC  := $(wildcard key/*.c)
SHIM_SRC := $(wildcard shim/*.c shim/ze/*.c shim/cl/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
KEY_OBJ  := $(KEY_SRC:%.c=$(BUILD)/obj/%.o)
SHIM_OBJ := $(SHIM_SRC:%.c=$(BUILD)/obj/%.o)

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELP_SRC  := $(wildcard tests/helpers/*.c)
HELP_BIN  := $(HELP_SRC:tests/helpers/%.c=$(BUILD)/tests/%)
EX_SRC    := $(wildcard examples/*.c)
EX_BIN    := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
FUZZ_SECONDS ?= 20
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
ADMIN_BIN := $(BUILD)/jitcache-admin
REPLAY_BIN := $(BUILD)/jitcache-replay
# oneDNN's SYCL build and Intel's SYCL runtime, inside the test bed
# (tests/testbed/sycl-env.sh, make testbed-sycl).
ONEDNN_SYCL ?= /opt/jitcache-sycl

.PHONY: all lib admin examples tests help deps check unit unit-build fuzz-build demo bench bench-web install wheel man deb debroot bench-idle \
        uninstall clean asan tsan fuzz sycl-env pyopencl-env sycl-check sycl-bench testbed modern-build \
        check-modern bench-modern testbed-sycl bench-sycl openvino-env testbed-openvino bench-openvino testbed-jax bench-pyopencl bench-apps \
        bench-pocl testbed-llama bench-llama testbed-s3

all: lib admin man ## build the library, the admin tool and the man page (needs only the library's own dependencies)

lib: $(BUILD)/$(LIBNAME) ## build build/libjitcache.so only

admin: $(ADMIN_BIN) $(REPLAY_BIN)

examples: all $(BUILD)/lib/libze_loader.so.1 $(EX_BIN) $(BUILD)/examples/libtrace.so ## build the example programs (Intel's driver, OpenCL, oneDNN)

tests: all $(HELP_BIN) $(UNIT_BIN) ## build the unit tests and the test programs (as examples)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  make \1\t/' | expand -t 24
	@echo "  variables: PREFIX=$(PREFIX) DESTDIR= SANITIZE=address,undefined WERROR= CC=$(CC) V=1"

$(BUILD)/obj/%.o: %.c $(wildcard */*.h */*/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# What shows the version is rebuilt when it changes.
$(BUILD)/obj/shim/runtime.o: Makefile


# The dlsym door runs inside sanitizer runtimes' own start-up (they look up
# functions with dlsym before they are ready), so it is never instrumented.
$(BUILD)/obj/shim/dlsym.o: SAN_CFLAGS =

$(BUILD)/libjccore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^

$(BUILD)/libjckey.a: $(KEY_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^

# The version script, from the one list of exports in shim/exports.h.
$(BUILD)/exports.map: shim/exports.h
	@mkdir -p $(dir $@)
	$(Q)printf '#include "shim/exports.h"\n#define X(api, name) name;\n{ global: JC_EXPORTS(X) local: *; };\n' | \
	  $(CC) -E -P -I. -x c - > $@

$(BUILD)/$(LIBNAME): $(SHIM_OBJ) $(KEY_OBJ) $(CORE_OBJ) $(BUILD)/exports.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/exports.map -Wl,--no-undefined-version \
	  -Wl,-z,defs -Wl,-z,now $(LDFLAGS) -o $@ $(SHIM_OBJ) $(KEY_OBJ) $(CORE_OBJ) $(LDLIBS_PRELOAD)
	$(Q)ln -sf $(LIBNAME) $(BUILD)/$(SONAME)

# Every bin/*.c but the replay worker is a part of jitcache-admin.
ADMIN_SRC := $(filter-out bin/jitcache-replay.c,$(wildcard bin/*.c))
$(ADMIN_BIN): $(ADMIN_SRC) $(wildcard bin/*.h) $(BUILD)/libjckey.a $(BUILD)/libjccore.a Makefile
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIE $(LDFLAGS) -o $@ $(ADMIN_SRC) \
	  $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(LDLIBS_CORE)

# The worker of `jitcache warm`: a Level Zero client that finds the driver
# at run time (dlopen), so building it needs no GPU package.
$(REPLAY_BIN): bin/jitcache-replay.c shim/ze/ze_api.h key/recipe.h $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIE $(LDFLAGS) -o $@ $< $(BUILD)/libjckey.a $(BUILD)/libjccore.a \
	  $(LDLIBS_CORE)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(LDLIBS_CORE)

# GPU client programs (test helpers, examples, benchmarks) link to the Level
# Zero loader as real applications do.  Debian 12's libze1 is the real
# loader; the tests also run the same programs straight on Intel's driver
# through build/lib/libze_loader.so.1, a symlink to it under the loader's name
# (LD_LIBRARY_PATH=build/lib), since the driver exports the whole ze* API.
ZE_DRIVER := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1 /usr/lib/*/libze_intel_gpu.so.1))
ZE_LOADER := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libze_loader.so.1 /usr/lib/*/libze_loader.so.1))
ZE_LINK   := $(if $(ZE_LOADER),$(ZE_LOADER),-L$(BUILD)/lib -lze_loader)
GPU_LIBS   = -Wl,-rpath-link,$(BUILD)/lib $(ZE_LINK) -lOpenCL -ldl -lm
CLIENT_HDRS := $(wildcard tests/helpers/*.h) shim/ze/ze_api.h

$(BUILD)/tests/%: tests/helpers/%.c $(CLIENT_HDRS) $(BUILD)/lib/libze_loader.so.1 $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< \
	  $(BUILD)/libjccore.a $(GPU_LIBS) $(LDLIBS_CORE)

# A helper that writes recipes (key/recipe.h) needs the key library too.
$(BUILD)/tests/jc_recipe_put: tests/helpers/jc_recipe_put.c $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libjckey.a $(BUILD)/libjccore.a \
	  $(LDLIBS_CORE)

# The HTTP(S)/S3 tiers' client, called directly (tiers/http.h): no GPU.
$(BUILD)/tests/jc_http_tool: tests/helpers/jc_http_tool.c $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libjckey.a $(BUILD)/libjccore.a \
	  $(LDLIBS_CORE)

# A program that loads OpenCL only through dlopen(): not linked to it.
$(BUILD)/tests/cl_unload: tests/helpers/cl_unload.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -ldl

# Test programs that compile a shim file themselves.
$(BUILD)/tests/cl_cache_tool: shim/cl/cl_payload.c shim/cl/cl_payload.h
$(BUILD)/tests/test_cl_payload: shim/cl/cl_payload.c shim/cl/cl_payload.h
$(BUILD)/tests/test_spirv $(BUILD)/tests/test_key: tests/helpers/ze_spec_module.h

$(BUILD)/examples/onednn_conv: EXTRA_LIBS = -ldnnl
$(BUILD)/examples/%: examples/%.c $(CLIENT_HDRS) $(BUILD)/lib/libze_loader.so.1
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< $(EXTRA_LIBS) $(GPU_LIBS)

# Benchmark programs: GPU clients, plus the store and key for micro-figures.
$(BUILD)/bench/%: bench/%.c bench/timing.h $(CLIENT_HDRS) $(BUILD)/lib/libze_loader.so.1 $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< \
	  $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(GPU_LIBS) $(LDLIBS_CORE)

$(BUILD)/lib/libze_loader.so.1:
	@mkdir -p $(dir $@)
	@test -n "$(ZE_DRIVER)" || { echo "libze_intel_gpu.so.1 not found: run 'make deps'"; exit 1; }
	$(Q)ln -sf $(ZE_DRIVER) $@
	$(Q)ln -sf libze_loader.so.1 $(BUILD)/lib/libze_loader.so

deps: ## install the Debian packages needed to build, test and demo (uses sudo if not root)
	@./tests/install-deps.sh

unit: $(UNIT_BIN) ## run the C unit tests of cache/, config/ and key/
	@for t in $(UNIT_BIN); do $$t || exit 1; done

unit-build: $(UNIT_BIN)
fuzz-build: $(FUZZ_BIN)

# Everything, in one run and one tally: unit tests (plain, ASan+UBSan, TSan),
# the fuzz targets for FUZZ_SECONDS each, the integration tests, and the
# Level Zero and Intel OpenCL ones again on Intel's 2026 driver in the test
# bed (tests/testbed/: a Debian sid chroot; the library and test programs
# are built inside it, with sid's compiler and libraries, into $(BUILD)-sid).
check: deps sycl-env pyopencl-env openvino-env testbed testbed-sycl testbed-openvino testbed-jax testbed-llama testbed-s3 wheel deb debroot ## install deps, build, and run every test (ends with "N passed, N failed")
	$(MAKE) tests examples $(FUZZ_BIN)
	$(MAKE) BUILD=$(BUILD)-asan SANITIZE=address,undefined unit-build
	$(MAKE) BUILD=$(BUILD)-tsan SANITIZE=thread unit-build
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	BUILD=$(BUILD) UNIT_BUILDS="$(BUILD) $(BUILD)-asan $(BUILD)-tsan" MODERN_BUILD=$(BUILD)-sid \
	  FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/run.sh

# What the modern-driver tests and benchmarks need, built inside the test bed
# (tests/testbed/run make BUILD=build-sid modern-build).
modern-build: lib $(ADMIN_BIN) $(REPLAY_BIN) $(BUILD)/lib/libze_loader.so.1 $(BUILD)/examples/ze_module \
	$(HELP_BIN) $(BUILD)/bench/ze_bench $(BUILD)/examples/libtrace.so \
	$(if $(wildcard $(ONEDNN_SYCL)/include/oneapi/dnnl/dnnl.h),$(BUILD)/examples/onednn_sycl)

check-modern: testbed testbed-sycl testbed-openvino testbed-jax testbed-llama ## only the tests on Intel's 2026 driver (test bed), in one tally
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	MODERN_BUILD=$(BUILD)-sid MODERN_ONLY=1 ./tests/run.sh

asan: ## run the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
	$(MAKE) BUILD=$(BUILD)-asan SANITIZE=address,undefined unit

tsan: ## run the unit tests (threaded paths) under ThreadSanitizer
	$(MAKE) BUILD=$(BUILD)-tsan SANITIZE=thread unit

# Fuzz targets: each tests/fuzz/fuzz_NAME.c with clang's libFuzzer, run for
# FUZZ_SECONDS from the seeds in tests/fuzz/corpus-NAME.  They are built from
# the sources of cache/, config/ and key/ (a target may #include a shim file).
$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(KEY_SRC) $(wildcard */*.h */*/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CLANG   $@")
	$(Q)clang -std=gnu11 -g -O1 -D_GNU_SOURCE -DJC_HAVE_ZSTD -I. -fsanitize=fuzzer,address,undefined \
	  -o $@ $< $(CORE_SRC) $(KEY_SRC) $(LDLIBS_CORE)
fuzz: $(FUZZ_BIN) ## run each fuzz target for FUZZ_SECONDS (default 30)
	@for f in $(FUZZ_BIN); do n=$${f##*/fuzz_}; mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== fuzz $$n ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 $(BUILD)/fuzz/corpus-$$n tests/fuzz/corpus-$$n \
	    2>$(BUILD)/fuzz/$$n.log || { tail -n 40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
	  grep -E '^#[0-9]+.*DONE' $(BUILD)/fuzz/$$n.log | tail -n 1; done

demo: ## the main job: a real program JIT-compiles cold, then loads warm from the cache
	@./tests/install-deps.sh demo
	$(MAKE) all $(BUILD)/examples/ze_module
	BUILD=$(BUILD) ./examples/demo.sh

bench: deps openvino-env pyopencl-env testbed testbed-sycl testbed-openvino testbed-jax testbed-llama testbed-s3 ## run the benchmarks and write bench/results.md
	$(MAKE) tests examples $(BENCH_BIN)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	BUILD=$(BUILD) MODERN_BUILD=$(BUILD)-sid ./bench/run.sh

bench-idle: all ## only what jitcache costs a process that never compiles (bench/idle.sh, ~1 min)
	BUILD=$(BUILD) bash bench/idle.sh $(BUILD)/bench/idle

.PHONY: bench-fleet
bench-fleet: deps testbed-s3 tests ## a driver rollout on N simulated nodes (FLEET_NODES, "4 16") against Redis, nginx and radosgw, plotted in fleet.png (bench/fleet.sh, ~5 min)
	rm -rf $(BUILD)/bench/fleet && mkdir -p $(BUILD)/bench/fleet && BUILD=$(BUILD) bash bench/fleet.sh $(BUILD)/bench/fleet | tee $(BUILD)/bench/fleet/fleet.txt

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
bench-pocl: deps pyopencl-env ## only PoCL's rows: pyopencl's six test files of issue 26 and clFFT-client, every way, idle and busy (bench/pocl.sh, ~1.5 h)
	$(MAKE) lib admin
	rm -rf $(BUILD)/bench/pocl && mkdir -p $(BUILD)/bench/pocl
	BUILD=$(BUILD) PYOPENCL_BENCH_FILES="$(PYOPENCL_BENCH_FILES)" bash bench/pocl.sh $(BUILD)/bench/pocl

bench-apps: deps ## only hashcat's and ffmpeg's rows on PoCL: none / jitcache / their own cache / both (bench/apps.sh)
	$(MAKE) lib admin
	rm -rf $(BUILD)/bench/apps && mkdir -p $(BUILD)/bench/apps
	BUILD=$(BUILD) bash bench/apps.sh $(BUILD)/bench/apps

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

bench-llama: testbed testbed-llama ## only llama.cpp's and ollama's rows, and the eight-target pack, on the 2026 driver (bench/llama.sh)
	./tests/testbed/run $(MAKE) BUILD=$(BUILD)-sid modern-build
	rm -rf $(BUILD)/bench/llama && mkdir -p $(BUILD)/bench/llama
	./tests/testbed/run env BUILD=$(BUILD)-sid bash bench/llama.sh $(BUILD)/bench/llama

bench-web: deps testbed testbed-s3 ## only the remote tiers' rows: hit latency by tier (local, layer, Redis, HTTP, S3), first run from a signed pack, a cold run with a web remote (bench/web.sh)
	$(MAKE) tests examples $(BENCH_BIN)
	rm -rf $(BUILD)/bench/web && mkdir -p $(BUILD)/bench/web
	BUILD=$(BUILD) bash bench/web.sh $(BUILD)/bench/web | tee $(BUILD)/bench/web/web.txt

testbed: deps ## create or update the Debian sid chroot with Intel's 2026 driver (tests/testbed/run CMD runs in it)
	@./tests/testbed/setup.sh

pyopencl-env: ## install pyopencl's PyPI wheel (its own renamed OpenCL loader) and its test files into .venv-pyopencl/
	@./examples/pyopencl/setup.sh

sycl-env: ## install Intel's SYCL runtime + dpctl/dpnp (pinned wheels) into .venv-sycl/
	@./examples/sycl/setup.sh

sycl-check: deps sycl-env ## Intel's SYCL runtime, unmodified, under jitcache
	$(MAKE) lib
	BUILD=$(BUILD) ./tests/run.sh sycl

sycl-bench: sycl-env ## SYCL workload cold vs warm: no cache, SYCL's cache, jitcache
	$(MAKE) lib
	./examples/sycl/bench.sh

openvino-env: ## install OpenVINO's PyPI wheel (GPU plugin, pinned) into .venv-openvino/
	@./examples/openvino/setup.sh

testbed-openvino: testbed ## install OpenVINO's PyPI wheel into the test bed (/opt/jitcache-openvino)
	@./tests/testbed/openvino-env.sh

testbed-jax: testbed ## install JAX 0.5.0 + Intel's OpenXLA plugin (oneAPI 2025.2 wheels, python3.13) into the test bed (/opt/jitcache-jax)
	@./tests/testbed/jax-env.sh

testbed-llama: testbed ## install ipex-llm's llama.cpp and ollama (bigdl-core-cpp, oneAPI 2025.3 wheels) + gguf into the test bed (/opt/jitcache-llama)
	@./tests/testbed/llama-env.sh

testbed-s3: testbed ## install Ceph's radosgw (the S3 server of tests/integration/s3_tier.sh) into the test bed
	@./tests/testbed/s3-env.sh

testbed-sycl: testbed ## install SYCL 2026.2, dpctl/dpnp and oneDNN's SYCL build into the test bed (/opt/jitcache-sycl)
	./tests/testbed/sycl-env.sh

# Built only inside the test bed (tests/testbed/run make BUILD=build-sid ...),
# against oneDNN's SYCL build there (tests/testbed/sycl-env.sh).  The wheel's
# libdnnl.so.3 has no RUNPATH: an RPATH (not RUNPATH) on the program also
# finds its dependencies (libsycl, libtbb, ...) in the same directory.
$(BUILD)/examples/onednn_sycl: examples/sycl/onednn.c
	@test -f $(ONEDNN_SYCL)/include/oneapi/dnnl/dnnl.h || { echo "$@: no oneDNN SYCL build in \
	  $(ONEDNN_SYCL): build this inside the test bed after 'make testbed-sycl'"; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) -I$(ONEDNN_SYCL)/include -o $@ $< \
	  -L$(ONEDNN_SYCL)/lib -l:libdnnl.so.3 -Wl,--disable-new-dtags,-rpath,$(ONEDNN_SYCL)/lib \
	  -Wl,--allow-shlib-undefined
# The diagnostic tracer of examples/sycl/NOTES.md (independent call counts).
$(BUILD)/examples/libtrace.so: examples/sycl/trace.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -Wall -Werror -shared -fPIC -fvisibility=hidden -o $@ $< -ldl

man: $(BUILD)/jitcache.1 ## the man page jitcache(1), generated from the commands' help and the settings table

$(BUILD)/jitcache.1: packaging/man/jitcache.1.in packaging/man/make-man.sh $(ADMIN_BIN)
	$(Q)./packaging/man/make-man.sh $(ADMIN_BIN) $(VERSION) < $< > $@.tmp && mv $@.tmp $@

# A clean Debian 12 chroot (as the test bed is made) where the package's
# test installs it: the drivers and loaders, nothing of jitcache.
DEBROOT := /var/tmp/jitcache-deb12
debroot: deps ## create or update the clean Debian 12 chroot of the package's install test
	@JITCACHE_TESTBED=$(DEBROOT) JITCACHE_TESTBED_SUITE=bookworm JITCACHE_TESTBED_LABEL=debroot \
	JITCACHE_TESTBED_PKGS="ocl-icd-libopencl1 pocl-opencl-icd intel-opencl-icd libze1 libinih1 libzstd1 man-db ca-certificates" \
	./tests/testbed/setup.sh

deb: ## build dist/jitcache_VERSION-1_amd64.deb with debhelper (packaging/debian), checked by lintian
	@./packaging/debian/make-deb.sh $(VERSION) dist

wheel: ## build dist/jitcache_gpu-VERSION-py3-none-manylinux_*.whl: the library and the command, for pip
	@MAKE="$(MAKE)" ./packaging/wheel/make-wheel.sh build-wheel $(VERSION) dist $(WHEEL_NAME)

# packaging/files.list says what is installed where (the wheel reads it too).
FILES_LIST := grep -v '^\#' packaging/files.list | grep . | sed 's|BUILD/|$(BUILD)/|'
dest_of = case $$kind in lib) d=$(LIBDIR) ;; libexec) d=$(LIBEXECDIR) ;; bin) d=$(BINDIR) ;; \
	  man1) d=$(MANDIR)/man1 ;; *) echo "packaging/files.list: unknown kind $$kind" >&2; exit 1 ;; esac

install: all ## install to $(DESTDIR)$(PREFIX) what packaging/files.list names
	$(FILES_LIST) | while read -r kind src name; do \
	  $(dest_of); install -d $(DESTDIR)$$d || exit 1; \
	  case $$kind in \
	  lib) install -m 0755 $$src $(DESTDIR)$$d/$$name.$(VERSION) && \
	       ln -sf $$name.$(VERSION) $(DESTDIR)$$d/$$name.$(SONAME_MAJOR) && \
	       ln -sf $$name.$(SONAME_MAJOR) $(DESTDIR)$$d/$$name ;; \
	  bin) sed -e 's|^JITCACHE_LIB_DEFAULT=.*|JITCACHE_LIB_DEFAULT=$(LIBDIR)/$(SONAME)|' \
	           -e 's|^JITCACHE_ADMIN_DEFAULT=.*|JITCACHE_ADMIN_DEFAULT=$(LIBEXECDIR)/jitcache-admin|' \
	           $$src > $(DESTDIR)$$d/$$name && chmod 0755 $(DESTDIR)$$d/$$name ;; \
	  man1) install -m 0644 $$src $(DESTDIR)$$d/$$name ;; \
	  *) install -m 0755 $$src $(DESTDIR)$$d/$$name ;; \
	  esac || exit 1; \
	done

uninstall: ## remove what `make install` put in place
	$(FILES_LIST) | while read -r kind src name; do \
	  $(dest_of); rm -f $(DESTDIR)$$d/$$name; \
	  [ $$kind = lib ] && rm -f $(DESTDIR)$$d/$$name.$(VERSION) $(DESTDIR)$$d/$$name.$(SONAME_MAJOR); \
	done; true
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

clean: ## remove build outputs
	rm -rf build build-asan build-tsan build-sid
