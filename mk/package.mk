# SPDX-License-Identifier: MIT
# mk/package.mk — what is installed and how it ships: the man page,
# `make install` / `make uninstall` (packaging/files.list), the Debian
# package and the clean chroot its test installs it in, and the wheel.

man: $(BUILD)/jitcache.1 ## the man page jitcache(1), generated from the commands' help and the settings table

$(BUILD)/jitcache.1: packaging/man/jitcache.1.in packaging/man/make-man.sh $(ADMIN_BIN)
	$(Q)./packaging/man/make-man.sh $(ADMIN_BIN) $(VERSION) < $< > $@.tmp && mv $@.tmp $@

# A clean Debian 12 chroot (as the test bed is made) where the package's
# test installs it: the drivers and loaders, nothing of jitcache; python3
# and sudo as a stock install has them (the install routes' test,
# tests/integration/install_routes.sh, runs the README's commands there).
DEBROOT := /var/tmp/jitcache-deb12
debroot: deps-all ## create or update the clean Debian 12 chroot of the package's install test
	@JITCACHE_TESTBED=$(DEBROOT) JITCACHE_TESTBED_SUITE=bookworm JITCACHE_TESTBED_LABEL=debroot \
	JITCACHE_TESTBED_PKGS="ocl-icd-libopencl1 pocl-opencl-icd intel-opencl-icd libze1 libinih1 libzstd1 man-db ca-certificates python3 sudo" \
	./tests/testbed/setup.sh

deb: ## build dist/jitcache_VERSION-1_amd64.deb with debhelper (packaging/debian), checked by lintian; installs the packaging tools it needs (sudo)
	@./tests/install-deps.sh deb
	@./packaging/debian/make-deb.sh $(VERSION) dist $(HOMEPAGE)

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
