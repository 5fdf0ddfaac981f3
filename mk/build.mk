# SPDX-License-Identifier: MIT
# mk/build.mk — compiling and linking: the library, the admin tool and the
# replayer, the unit tests and test programs, the examples, the benchmark
# programs and the fuzz targets.  Each compile writes its header
# dependencies beside its output (-MMD -MP: a .d file), read back below, so
# an object is rebuilt when a header it includes changes, and only then.

# The libraries' flags from their pkg-config files, or the plain names
# where pkg-config or a .pc file is missing.  hiredis and libsodium are
# linked statically: the library lives inside other programs, and a host
# with its own hiredis of another version must not have its calls bound to
# ours (the version script, build/exports.map, keeps every hiredis name
# hidden).
pc = $(or $(shell pkg-config $(1) $(2) 2>/dev/null),$(3))
DEP_CFLAGS  := $(call pc,--cflags,libzstd inih hiredis libsodium libxxhash,)
LDLIBS_CORE := $(call pc,--libs,inih libzstd,-linih -lzstd) \
               $(call pc,--libs-only-L,hiredis libsodium,) -l:libhiredis.a -l:libsodium.a -ldl -pthread
# The core (libjitcache-core.so, loaded by the preloaded library on the
# first intercepted call) links inih and zstd statically too: each shared
# library more costs a process that compiles its loading, relocations and
# page faults.  The preloaded library itself links only libc (issue 37:
# every process of a user who leaves jitcache on maps it).
LDLIBS_PRELOAD := $(call pc,--libs-only-L,inih libzstd hiredis libsodium,) \
                  -l:libinih.a -l:libzstd.a -l:libhiredis.a -l:libsodium.a -ldl -pthread
OPENCL_LIBS := $(call pc,--libs,OpenCL,-lOpenCL)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wcast-qual -Wwrite-strings -Wformat=2 \
        -Wundef -Wvla -Wno-unused-parameter $(WERROR)

CFLAGS   ?= -O2 -g
# Each function and object in its own section, so that the core's link
# (--gc-sections) leaves out what only the commands use.
BASE_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections \
              -D_GNU_SOURCE -DJC_HAVE_ZSTD -DJC_VERSION='"$(VERSION)"' -DJC_CORE_FILE='"$(CORE_SONAME)"' -I. $(DEP_CFLAGS) -pthread

ifneq ($(SANITIZE),)
  SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS    += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(SAN_CFLAGS) -MMD -MP

CORE_SRC := $(wildcard cache/*.c tiers/*.c store/*.c trust/*.c config/*.c)
KEY_SRC  := $(wildcard key/*.c)
# The preloaded library (shim/preload.h): these, config/capture.c,
# config/log.c (its one line when the core cannot be loaded),
# config/core_file.c and config/path_trust.c (which core it may load).  The
# rest of shim/ goes into the core.
STUB_SRC := shim/preload.c shim/dlsym.c shim/exec.c
SHIM_SRC := $(filter-out $(STUB_SRC),$(wildcard shim/*.c shim/ze/*.c shim/cl/*.c))
# Every bin/*.c but the replay worker is a part of jitcache-admin.
ADMIN_SRC := $(filter-out bin/jitcache-replay.c,$(wildcard bin/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
KEY_OBJ  := $(KEY_SRC:%.c=$(BUILD)/obj/%.o)
SHIM_OBJ := $(SHIM_SRC:%.c=$(BUILD)/obj/%.o)
STUB_OBJ := $(STUB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/config/capture.o $(BUILD)/obj/config/log.o \
            $(BUILD)/obj/config/core_file.o $(BUILD)/obj/config/path_trust.o
ADMIN_OBJ := $(ADMIN_SRC:%.c=$(BUILD)/obj/%.o)

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELP_SRC  := $(wildcard tests/helpers/*.c)
HELP_BIN  := $(HELP_SRC:tests/helpers/%.c=$(BUILD)/tests/%)
EX_SRC    := $(wildcard examples/*.c)
EX_BIN    := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJ  := $(CORE_SRC:%.c=$(BUILD)/fuzz/obj/%.o) $(KEY_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
ADMIN_BIN := $(BUILD)/jitcache-admin
REPLAY_BIN := $(BUILD)/jitcache-replay

# The header dependencies the compiles wrote (none before the first build).
-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d $(BUILD)/tests/*.d $(BUILD)/examples/*.d \
                    $(BUILD)/bench/*.d $(BUILD)/fuzz/*.d $(BUILD)/fuzz/obj/*/*.d $(BUILD)/*.d)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# The admin tool's objects are compiled for an executable (-fPIE after the
# library's -fPIC), as the replayer is.
$(ADMIN_OBJ): ALL_CFLAGS += -fPIE

# What shows the version is rebuilt when it changes.
$(BUILD)/obj/shim/runtime.o $(BUILD)/obj/shim/preload.o $(BUILD)/obj/shim/core.o \
  $(BUILD)/obj/bin/jitcache-admin.o: Makefile

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

# The preloaded library: the exports, the dlsym door, the capture at start
# (shim/preload.h).  Only libc.  Every process of a user who leaves jitcache
# on maps it, so its pages are counted (bench/idle.sh): -z noseparate-code
# maps its headers, code and constants as one segment (one mapping, one
# fault for all) instead of three; its 16 KB hold no secret to hide from
# gadgets, and its relocations stay read-only after start (relro, now).
$(BUILD)/$(LIBNAME): $(STUB_OBJ) $(BUILD)/exports.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/exports.map -Wl,--no-undefined-version \
	  -Wl,-z,defs -Wl,-z,now -Wl,-z,relro -Wl,-z,noseparate-code -Wl,--gc-sections $(LDFLAGS) \
	  -o $@ $(STUB_OBJ) -ldl
	$(Q)ln -sf $(LIBNAME) $(BUILD)/$(SONAME)

# The core: everything else, loaded beside it on the first intercepted
# call.  One export, jc_core_attach; --gc-sections drops what only the
# commands use (export, import, archives, reports, scans, keygen).
$(BUILD)/core.map:
	@mkdir -p $(dir $@)
	$(Q)printf '{ global: jc_core_attach; local: *; };\n' > $@

$(BUILD)/$(CORENAME): $(SHIM_OBJ) $(KEY_OBJ) $(CORE_OBJ) $(BUILD)/core.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(CORE_SONAME) -Wl,--version-script=$(BUILD)/core.map \
	  -Wl,-z,defs -Wl,-z,now -Wl,--gc-sections $(LDFLAGS) -o $@ $(SHIM_OBJ) $(KEY_OBJ) $(CORE_OBJ) \
	  $(LDLIBS_PRELOAD)
	$(Q)ln -sf $(CORENAME) $(BUILD)/$(CORE_SONAME)

$(ADMIN_BIN): $(ADMIN_OBJ) $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIE $(LDFLAGS) -o $@ $(ADMIN_OBJ) \
	  $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(LDLIBS_CORE)

# The worker of `jitcache warm`: a Level Zero client that finds the driver
# at run time (dlopen), so building it needs no GPU package.
$(REPLAY_BIN): bin/jitcache-replay.c $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIE $(LDFLAGS) -o $@ $< $(BUILD)/libjckey.a $(BUILD)/libjccore.a \
	  $(LDLIBS_CORE)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libjckey.a $(BUILD)/libjccore.a
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
GPU_LIBS   = -Wl,-rpath-link,$(BUILD)/lib $(ZE_LINK) $(OPENCL_LIBS) -ldl -lm

$(BUILD)/tests/%: tests/helpers/%.c $(BUILD)/lib/libze_loader.so.1 $(BUILD)/libjccore.a
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

$(BUILD)/examples/onednn_conv: EXTRA_LIBS = -ldnnl
$(BUILD)/examples/%: examples/%.c $(BUILD)/lib/libze_loader.so.1
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< $(EXTRA_LIBS) $(GPU_LIBS)

# Benchmark programs: GPU clients, plus the store and key for micro-figures.
$(BUILD)/bench/%: bench/%.c $(BUILD)/lib/libze_loader.so.1 $(BUILD)/libjckey.a $(BUILD)/libjccore.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-deprecated-declarations $(LDFLAGS) -o $@ $< \
	  $(BUILD)/libjckey.a $(BUILD)/libjccore.a $(GPU_LIBS) $(LDLIBS_CORE)

$(BUILD)/lib/libze_loader.so.1:
	@mkdir -p $(dir $@)
	@test -n "$(ZE_DRIVER)" || { echo "libze_intel_gpu.so.1 not found: run 'make deps'"; exit 1; }
	$(Q)ln -sf $(ZE_DRIVER) $@
	$(Q)ln -sf libze_loader.so.1 $(BUILD)/lib/libze_loader.so

# Fuzz targets: each tests/fuzz/fuzz_NAME.c with clang's libFuzzer, linked
# with the sources of cache/, config/ and key/ compiled for fuzzing once
# (build/fuzz/obj/); a target may #include a shim file.
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -DJC_HAVE_ZSTD -I. $(DEP_CFLAGS) -MMD -MP
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CLANG   $<")
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CLANG   $@")
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_OBJ) $(LDLIBS_CORE)

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
