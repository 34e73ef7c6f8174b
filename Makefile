# flamekit top-level Makefile (GNU make). `make`, `make test`, `make bench`,
# `make install PREFIX=... DESTDIR=...`, `make uninstall`, `make deps`, `make demo`.
# SANITIZE=1 builds everything with ASan+UBSan into build-san/.
# Each component adds its rules from its own rules.mk fragment.

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
EXTRA_CFLAGS ?=
LDFLAGS ?=
V ?= 0
SANITIZE ?= 0

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build
SAN_FLAGS :=
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wno-format-nonliteral
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -fPIC -fvisibility=hidden \
	-Icommon $(SAN_FLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
BASE_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)

VERSION := $(shell sed -n 's/^\#define FK_VERSION_STRING "\(.*\)"/\1/p' common/flamekit.h)

ALL_TARGETS :=
INSTALL_TARGETS :=
TEST_DEPS :=

all: build-all

include common/rules.mk
-include perf-plugin/rules.mk
-include gdb-plugin/rules.mk
-include stap-tapset/rules.mk
-include tests/rules.mk

build-all: $(ALL_TARGETS)

$(BUILD)/.dir:
	$(Q)mkdir -p $(BUILD) && touch $@

# ---- tests, benchmarks, demo
test: build-all $(TEST_DEPS)
	$(Q)BUILD=$(abspath $(BUILD)) SANITIZE=$(SANITIZE) bash tests/run-all.sh

# The generated docs: the man page from --help, the option tables from the
# programs' tables (tests/core/t-docs.sh checks both are current).
docs: build-all
	$(Q)bash docs/gen-man.sh $(BUILD)/flamekit > docs/flamekit.1
	$(Q)bash docs/gen-options.sh $(abspath $(BUILD))

# What the tests need, built without running them (then tests/run-all.sh NAME).
test-build: build-all $(TEST_DEPS)

# Everything CI runs: the whole suite, then again under ASan+UBSan.
check:
	$(Q)$(MAKE) --no-print-directory test
	$(Q)$(MAKE) --no-print-directory test SANITIZE=1

bench: build-all
	$(Q)BUILD=$(abspath $(BUILD)) bash bench/run-all.sh $(BENCH)

deps:
	$(Q)bash .ci/install-deps

demo: build-all
	$(Q)BUILD=$(abspath $(BUILD)) bash tests/demo.sh

# ---- install: every installed file goes through $(call fk_install,...) and is
# recorded in a manifest, so uninstall removes exactly what install wrote.
MANIFEST := $(DESTDIR)$(PREFIX)/share/flamekit/install-manifest
define fk_install
	$(Q)install -d $(DESTDIR)$(2)
	$(Q)install -m $(3) $(1) $(DESTDIR)$(2)/
	$(Q)for f in $(notdir $(1)); do echo "$(2)/$$f" >> $(MANIFEST).tmp; done
endef

install: build-all install-begin $(INSTALL_TARGETS)
	$(Q)echo "$(PREFIX)/share/flamekit/install-manifest" >> $(MANIFEST).tmp
	$(Q)sort -u $(MANIFEST).tmp > $(MANIFEST) && rm -f $(MANIFEST).tmp
	@echo "installed $$(wc -l < $(MANIFEST)) files under $(DESTDIR)$(PREFIX)"

install-begin:
	$(Q)install -d $(DESTDIR)$(PREFIX)/share/flamekit
	$(Q)rm -f $(MANIFEST).tmp

uninstall:
	$(Q)if [ ! -f $(MANIFEST) ]; then echo "uninstall: no manifest at $(MANIFEST)" >&2; exit 1; fi
	$(Q)files=$$(cat $(MANIFEST)); for f in $$files; do rm -f "$(DESTDIR)$$f"; done; \
	for d in $$(printf '%s\n' $$files | sed 's|/[^/]*$$||' | sort -ru); do \
		rmdir -p --ignore-fail-on-non-empty "$(DESTDIR)$$d" 2>/dev/null || true; done
	@echo "uninstalled from $(DESTDIR)$(PREFIX)"

clean:
	rm -rf build build-san

.PHONY: all build-all docs test test-build check bench deps demo install install-begin uninstall clean
