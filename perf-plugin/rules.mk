# perf-plugin/rules.mk - flamekit-dlfilter.so (perf script --dlfilter), perf-flame, and
# the perf script Python hook (flamekit.py over the gdb plugin's _flamekit module).
DLF_SRCS := perf-plugin/dlfilter.c perf-plugin/sched.c perf-plugin/opts.c
DLF_OBJS := $(DLF_SRCS:perf-plugin/%.c=$(BUILD)/perf-plugin/%.o)
# libtraceevent is linked statically: perf exports its own copy's tep_* symbols.
TRACEEVENT_A ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libtraceevent.a /usr/lib/*/libtraceevent.a /usr/lib/libtraceevent.a /usr/local/lib/libtraceevent.a))
TRACEEVENT_CFLAGS ?= $(shell pkg-config --cflags libtraceevent 2>/dev/null)

ALL_TARGETS += $(BUILD)/flamekit-dlfilter.so $(BUILD)/perf-flame

$(BUILD)/perf-plugin/%.o: perf-plugin/%.c perf-plugin/dlfilter.h common/flamekit.h common/prog/prog.h | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) $(TRACEEVENT_CFLAGS) -c $< -o $@

$(BUILD)/flamekit-dlfilter.so: $(DLF_OBJS) $(PROG_LIB) $(BUILD)/libflamekit.a perf-plugin/dlfilter.map
	@$(if $(filter 1,$(V)),,echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,--version-script=perf-plugin/dlfilter.map -Wl,-Bsymbolic -Wl,-z,defs \
		-o $@ $(DLF_OBJS) $(PROG_LIB) $(BUILD)/libflamekit.a $(if $(TRACEEVENT_A),$(TRACEEVENT_A),-ltraceevent) \
		$(BASE_LDFLAGS) -ldl $(LIB_LIBS)

$(BUILD)/perf-flame: $(BUILD)/perf-plugin/perf-flame.o $(BUILD)/perf-plugin/opts.o $(PROG_LIB) $(BUILD)/libflamekit.a
	@$(if $(filter 1,$(V)),,echo "  LD      $@")
	$(Q)$(CC) -o $@ $(BUILD)/perf-plugin/perf-flame.o $(BUILD)/perf-plugin/opts.o $(PROG_LIB) $(BUILD)/libflamekit.a $(BASE_LDFLAGS) $(LIB_LIBS)

# Only the dlfilter entry points may be exported.
check-dlfilter-symbols: $(BUILD)/flamekit-dlfilter.so
	$(Q)bad=$$(nm -D --defined-only $< | awk '$$2 ~ /[TDBRV]/ {print $$3}' | \
		grep -vxE 'start|stop|filter_event|filter_description|perf_dlfilter_fns' || true); \
	if [ -n "$$bad" ]; then echo "flamekit-dlfilter.so exports:" $$bad >&2; exit 1; fi

install-perf-plugin: $(BUILD)/flamekit-dlfilter.so $(BUILD)/perf-flame
	$(call fk_install,$(BUILD)/flamekit-dlfilter.so,$(PREFIX)/lib/flamekit,644)
	$(call fk_install,$(BUILD)/perf-flame,$(PREFIX)/bin,755)
	$(call fk_install,docs/perf-flame.1,$(PREFIX)/share/man/man1,644)

INSTALL_TARGETS += install-perf-plugin
TEST_DEPS += check-dlfilter-symbols
.PHONY: check-dlfilter-symbols install-perf-plugin

# ---- the Python hook: $(BUILD)/perf/flamekit.py finds the module in ../gdb, in the
# build tree as in $(PREFIX)/share/flamekit/. `perf script report flamekit` runs
# $(PERF_EXEC_PATH)/scripts/python/bin/flamekit-report (perf looks nowhere else):
# its -record/-report wrappers go there, naming the hook's installed path.
PERF_EXEC_PATH ?= $(shell perf --exec-path 2>/dev/null)
ALL_TARGETS += $(BUILD)/perf/flamekit.py
$(BUILD)/perf/flamekit.py: perf-plugin/flamekit-hook.py | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

# the wrappers name the hook's path under PREFIX: one folder per PREFIX, so installs
# to different places at once do not race on one file
HOOK_BIN := $(BUILD)/perf/bin$(subst /,_,$(PREFIX))
$(HOOK_BIN)/flamekit-report: perf-plugin/flamekit-report.in FORCE | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	$(Q)sed 's|@HOOK@|$(PREFIX)/share/flamekit/perf/flamekit.py|' $< > $@
$(HOOK_BIN)/flamekit-record: FORCE | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' '#!/bin/sh' 'exec perf record -g "$$@"' > $@

install-perf-hook: $(BUILD)/perf/flamekit.py $(HOOK_BIN)/flamekit-report $(HOOK_BIN)/flamekit-record
	$(call fk_install,$(BUILD)/perf/flamekit.py,$(PREFIX)/share/flamekit/perf,644)
ifneq ($(PERF_EXEC_PATH),)
	$(call fk_install,$(HOOK_BIN)/flamekit-report $(HOOK_BIN)/flamekit-record,$(PERF_EXEC_PATH)/scripts/python/bin,755)
else
	@echo "perf not found: perf script report flamekit not installed (set PERF_EXEC_PATH)"
endif

# the hook needs the module: installed with it (the gdb plugin's rules decide)
ifeq ($(SANITIZE),0)
ifneq ($(wildcard $(shell $(or $(GDB_PYTHON),/usr/bin/python3) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h),)
INSTALL_TARGETS += install-perf-hook
endif
endif
.PHONY: install-perf-hook
