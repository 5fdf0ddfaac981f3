# SPDX-License-Identifier: MIT
# jitcache — build, test, demo and install.   `make help` lists the targets.
#
# Layout (docs/design.md): the rooms, each calling only those below it:
# shim/ (interposed entry points: what both APIs share; shim/ze/ Level
# Zero, shim/cl/ OpenCL; shim/preload.h says which of its files make the
# small preloaded library and which the core it loads), key/ (requests and their keys), cache/ (the
# cache as the shim sees it: lookups and stores across the tiers, compile
# once, recipes, export and import), tiers/ (read-only layers, the remotes
# - Redis, HTTP(S) and WebDAV, S3 - and archives), store/ (the local
# on-disk store), trust/ (signing and verifying), config/ (settings,
# logging, and the small utilities every room uses: clock, hex, escaping).
# Every .c file of them goes into build/libjitcache-core.so, which the
# small preloaded library build/libjitcache.so loads on the first
# intercepted call; cache/, tiers/, store/, trust/ and config/ also form
# build/libjccore.a, which the admin tool links, and key/
# build/libjckey.a, which the unit tests and benchmarks link beside it.
#
# `make` (and `make install`) builds only the library and the admin tool,
# which need only libzstd-dev, libxxhash-dev, libinih-dev, libhiredis-dev,
# libsodium-dev and opencl-c-headers (`tests/install-deps.sh build`).  The
# examples and tests are GPU programs that need Intel's driver, OpenCL and
# oneDNN: `make examples` and `make tests` (and check, demo, bench) build them.
# Commands are shown as "CC file"; V=1 shows them whole.
#
# The rules, by concern:
#   mk/build.mk    compiling and linking every program (header dependencies
#                  generated, libraries' flags from pkg-config)
#   mk/test.mk     make deps; the two tiers, make check and make check-all;
#                  unit, asan, tsan, fuzz
#   mk/bench.mk    make bench and the bench-* families
#   mk/testbed.mk  the Debian sid test bed, its frameworks, the .venv-* envs
#   mk/package.mk  man page, install and uninstall, the .deb, the wheel

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
# The core the preloaded library loads on the first intercepted call, from
# its own directory (shim/preload.h).
CORENAME     := libjitcache-core.so
CORE_SONAME  := $(CORENAME).$(SONAME_MAJOR)
# The wheel's distribution name, free on PyPI (`jitcache` there is another
# project); its package and command are `jitcache`.  README.md and
# docs/install.md name it (tests/integration/docs.sh checks they do, wheel.sh
# that the wheel's metadata does).
WHEEL_NAME   := jitcache-gpu
# The project's public home, set here once: the Debian package's Homepage
# (packaging/debian/make-control.sh fills packaging/debian/control's
# @HOMEPAGE@) and the wheel's Project-URL (setup.py reads it, as VERSION).
# A placeholder until the project has a public home.
HOMEPAGE     := https://example.org/jitcache

.PHONY: all lib admin examples tests help demo clean \
        deps deps-all check check-all check-modern unit unit-build fuzz-build asan tsan fuzz sycl-check \
        bench bench-modern bench-sycl bench-pocl bench-pyopencl bench-openvino bench-jax bench-soundness \
        bench-llama bench-web sycl-bench bench-idle bench-apps bench-hit bench-fleet \
        modern-build testbed pyopencl-env tinygrad-env jupyter-env sycl-env openvino-env testbed-openvino testbed-jax testbed-llama \
        testbed-s3 testbed-sycl \
        man debroot deb wheel install uninstall

# The rules by concern, then the top-level targets (their prerequisites are
# read with the variables the mk/ files define).
.DEFAULT_GOAL := all
include mk/build.mk mk/test.mk mk/bench.mk mk/testbed.mk mk/package.mk

all: lib admin man ## build the library, the admin tool and the man page (needs only the library's own dependencies)

lib: $(BUILD)/$(LIBNAME) $(BUILD)/$(CORENAME) ## build build/libjitcache.so and the core it loads (libjitcache-core.so) only

admin: $(ADMIN_BIN) $(REPLAY_BIN)

examples: all $(BUILD)/lib/libze_loader.so.1 $(EX_BIN) $(BUILD)/examples/libtrace.so ## build the example programs (Intel's driver, OpenCL, oneDNN)

tests: all $(HELP_BIN) $(UNIT_BIN) ## build the unit tests and the test programs (as examples)

demo: ## the main job: a real program JIT-compiles cold, then loads warm from the cache
	@./tests/install-deps.sh demo
	$(MAKE) all $(BUILD)/examples/ze_module
	BUILD=$(BUILD) ./examples/demo.sh

help: ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(filter Makefile mk/%.mk,$(MAKEFILE_LIST)) | sed -E 's/^([a-z0-9-]+):.*## /  make \1\t/' | expand -t 24
	@echo "  variables: PREFIX=$(PREFIX) DESTDIR= SANITIZE=address,undefined WERROR= CC=$(CC) V=1 FUZZ_SECONDS=$(FUZZ_SECONDS)"

clean: ## remove build outputs
	rm -rf build build-asan build-tsan build-sid
