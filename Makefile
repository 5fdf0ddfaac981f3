# jitcache — build, test, demo and install.   `make help` lists the targets.
#
# Layout: shim/ (interposed entry points), key/ (requests and their keys:
# fingerprint, compiler identity, #includes, SPIR-V), cache/ (on-disk
# store), config/ (settings and logging).  Every .c file in those four
# folders goes into build/libjitcache.so; cache/ and config/ also form
# build/libjccore.a, which the admin tool links, and key/ build/libjckey.a,
# which the unit tests and benchmarks link beside it.

PREFIX     ?= /usr/local
DESTDIR    ?=
LIBDIR     ?= $(PREFIX)/lib
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/jitcache

CC       ?= cc
BUILD    ?= build
SANITIZE ?=
WERROR   ?= -Werror

SONAME_MAJOR := 1
LIBNAME      := libjitcache.so
SONAME       := $(LIBNAME).$(SONAME_MAJOR)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wcast-qual -Wwrite-strings -Wformat=2 \
        -Wundef -Wvla -Wno-unused-parameter $(WERROR)

CFLAGS   ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
              -D_GNU_SOURCE -DJC_HAVE_ZSTD -I. -pthread
LDLIBS_CORE := -linih -lzstd -ldl -pthread

ifneq ($(SANITIZE),)
  SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS    += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(SAN_CFLAGS)

CORE_SRC := $(wildcard cache/*.c) $(wildcard config/*.c)
KEY_SRC  := $(wildcard key/*.c)
SHIM_SRC := $(wildcard shim/*.c)
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

.PHONY: all lib help deps check unit unit-build fuzz-build demo bench install uninstall clean asan tsan fuzz \
        sycl-env sycl-check sycl-bench

all: lib $(ADMIN_BIN) $(BUILD)/lib/libze_loader.so.1 $(EX_BIN) ## build the library, admin tool and examples

lib: $(BUILD)/$(LIBNAME) ## build build/libjitcache.so only

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  make \1\t/' | expand -t 24
	@echo "  variables: PREFIX=$(PREFIX) DESTDIR= SANITIZE=address,undefined WERROR= CC=$(CC)"

$(BUILD)/obj/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The dlsym door runs inside sanitizer runtimes' own start-up (they look up
# functions with dlsym before they are ready), so it is never instrumented.
$(BUILD)/obj/shim/dlsym.o: SAN_CFLAGS =

$(BUILD)/libjccore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/libjckey.a: $(KEY_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/$(LIBNAME): $(SHIM_OBJ) $(KEY_OBJ) $(CORE_OBJ) shim/exports.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=shim/exports.map \
	  -Wl,-z,defs -Wl,-z,now $(LDFLAGS) -o $@ $(SHIM_OBJ) $(KEY_OBJ) $(CORE_OBJ) $(LDLIBS_CORE)
	ln -sf $(LIBNAME) $(BUILD)/$(SONAME)

$(ADMIN_BIN): bin/jitcache-admin.c $(BUILD)/libjccore.a
	$(CC) $(ALL_CFLAGS) -fPIE $(LDFLAGS) -o $@ $< $(BUILD)/libjccore.a $(LDLIBS_CORE)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(LDLIBS_CORE)

# GPU client programs (test helpers, examples, benchmarks) link to the Level
# Zero loader as real applications do.  Debian 12's libze1 is the real
# loader; the tests also run the same programs straight on Intel's driver
# through build/lib/libze_loader.so.1, a symlink to it under the loader's name
# (LD_LIBRARY_PATH=build/lib), since the driver exports the whole ze* API.
ZE_DRIVER := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1 /usr/lib/*/libze_intel_gpu.so.1))
ZE_LOADER := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libze_loader.so.1 /usr/lib/*/libze_loader.so.1))
ZE_LINK   := $(if $(ZE_LOADER),$(ZE_LOADER),-L$(BUILD)/lib -lze_loader)
GPU_LIBS   = -Wl,-rpath-link,$(BUILD)/lib $(ZE_LINK) -lOpenCL -ldl -lm
CLIENT_HDRS := $(wildcard tests/helpers/*.h) shim/ze_api.h

$(BUILD)/tests/%: tests/helpers/%.c $(CLIENT_HDRS) $(BUILD)/lib/libze_loader.so.1 $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< \
	  $(BUILD)/libjccore.a $(GPU_LIBS) $(LDLIBS_CORE)

# Test programs that compile a shim file themselves.
$(BUILD)/tests/cl_cache_tool: shim/cl_payload.c shim/cl_payload.h
$(BUILD)/tests/test_cl_payload: shim/cl_payload.c shim/cl_payload.h
$(BUILD)/tests/test_spirv $(BUILD)/tests/test_key: tests/helpers/ze_spec_module.h

$(BUILD)/examples/onednn_conv: EXTRA_LIBS = -ldnnl
$(BUILD)/examples/%: examples/%.c $(CLIENT_HDRS) $(BUILD)/lib/libze_loader.so.1
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< $(EXTRA_LIBS) $(GPU_LIBS)

# Benchmark programs: GPU clients, plus the store and key for micro-figures.
$(BUILD)/bench/%: bench/%.c $(CLIENT_HDRS) $(BUILD)/lib/libze_loader.so.1 $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< \
	  $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(GPU_LIBS) $(LDLIBS_CORE)

$(BUILD)/lib/libze_loader.so.1:
	@mkdir -p $(dir $@)
	@test -n "$(ZE_DRIVER)" || { echo "libze_intel_gpu.so.1 not found: run 'make deps'"; exit 1; }
	ln -sf $(ZE_DRIVER) $@
	ln -sf libze_loader.so.1 $(BUILD)/lib/libze_loader.so

deps: ## install the Debian packages needed to build, test and demo (uses sudo if not root)
	@./tests/install-deps.sh

unit: $(UNIT_BIN) ## run the C unit tests of cache/, config/ and key/
	@for t in $(UNIT_BIN); do $$t || exit 1; done

unit-build: $(UNIT_BIN)
fuzz-build: $(FUZZ_BIN)

# Everything, in one run and one tally: unit tests (plain, ASan+UBSan, TSan),
# the fuzz targets for FUZZ_SECONDS each, and the integration tests.
check: deps sycl-env ## install deps, build, and run every test (ends with "N passed, N failed")
	$(MAKE) all $(HELP_BIN) $(UNIT_BIN) $(FUZZ_BIN)
	$(MAKE) BUILD=$(BUILD)-asan SANITIZE=address,undefined unit-build
	$(MAKE) BUILD=$(BUILD)-tsan SANITIZE=thread unit-build
	BUILD=$(BUILD) UNIT_BUILDS="$(BUILD) $(BUILD)-asan $(BUILD)-tsan" \
	  FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/run.sh

asan: ## run the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
	$(MAKE) BUILD=build-asan SANITIZE=address,undefined unit

tsan: ## run the unit tests (threaded paths) under ThreadSanitizer
	$(MAKE) BUILD=build-tsan SANITIZE=thread unit

# Fuzz targets: each tests/fuzz/fuzz_NAME.c with clang's libFuzzer, run for
# FUZZ_SECONDS from the seeds in tests/fuzz/corpus-NAME.  They are built from
# the sources of cache/, config/ and key/ (a target may #include a shim file).
$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(KEY_SRC) $(wildcard */*.h)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -D_GNU_SOURCE -DJC_HAVE_ZSTD -I. -fsanitize=fuzzer,address,undefined \
	  -o $@ $< $(CORE_SRC) $(KEY_SRC) $(LDLIBS_CORE)
fuzz: $(FUZZ_BIN) ## run each fuzz target for FUZZ_SECONDS (default 30)
	@for f in $(FUZZ_BIN); do n=$${f##*/fuzz_}; mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== fuzz $$n ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 $(BUILD)/fuzz/corpus-$$n tests/fuzz/corpus-$$n \
	    2>$(BUILD)/fuzz/$$n.log || { tail -n 40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
	  grep -E '^#[0-9]+.*DONE' $(BUILD)/fuzz/$$n.log | tail -n 1; done

demo: deps ## the main job: a real program JIT-compiles cold, then loads warm from the cache
	$(MAKE) all
	BUILD=$(BUILD) ./examples/demo.sh

bench: deps ## run the benchmarks and write bench/results.md
	$(MAKE) all $(HELP_BIN) $(BENCH_BIN)
	BUILD=$(BUILD) ./bench/run.sh

sycl-env: ## install Intel's SYCL runtime + dpctl/dpnp (pinned wheels) into .venv-sycl/
	./examples/sycl/setup.sh

sycl-check: deps sycl-env ## Intel's SYCL runtime, unmodified, under jitcache
	$(MAKE) lib
	BUILD=$(BUILD) ./tests/run.sh sycl

sycl-bench: sycl-env ## SYCL workload cold vs warm: no cache, SYCL's cache, jitcache
	$(MAKE) lib
	./examples/sycl/bench.sh

install: all ## install to $(DESTDIR)$(PREFIX)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 0755 $(BUILD)/$(LIBNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(LIBNAME)
	install -m 0755 $(ADMIN_BIN) $(DESTDIR)$(LIBEXECDIR)/jitcache-admin
	sed -e 's|^JITCACHE_LIB_DEFAULT=.*|JITCACHE_LIB_DEFAULT=$(LIBDIR)/$(LIBNAME)|' \
	    -e 's|^JITCACHE_ADMIN_DEFAULT=.*|JITCACHE_ADMIN_DEFAULT=$(LIBEXECDIR)/jitcache-admin|' \
	    bin/jitcache > $(DESTDIR)$(BINDIR)/jitcache
	chmod 0755 $(DESTDIR)$(BINDIR)/jitcache

uninstall: ## remove what `make install` put in place
	rm -f $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/$(LIBNAME) \
	      $(DESTDIR)$(BINDIR)/jitcache $(DESTDIR)$(LIBEXECDIR)/jitcache-admin
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

clean: ## remove build outputs
	rm -rf build build-asan build-tsan
