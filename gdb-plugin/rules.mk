# gdb-plugin/rules.mk - the _flamekit Python module (stable ABI, for gdb's embedded
# Python, perf's Python scripting and any CPython >= 3.7: the general binding from
# common/python/, the sampler's part from here) and the gdb `flame` command, laid out in
# $(BUILD)/gdb/ exactly as installed in $(PREFIX)/share/flamekit/gdb/ (script and module
# side by side).
GDB_PYTHON ?= /usr/bin/python3
GDB_PY_INC ?= $(shell $(GDB_PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
GDB_MOD := $(BUILD)/gdb/_flamekit.abi3.so
GDB_SRCS := common/python/module.c gdb-plugin/py-sampler.c gdb-plugin/sampler.c \
	gdb-plugin/interp.c gdb-plugin/interp-python.c
# The module is loaded into gdb, which has no sanitizer runtime: no SANITIZE build of it.
GDB_CFLAGS := $(filter-out $(SAN_FLAGS),$(BASE_CFLAGS)) -Icommon/python -I$(GDB_PY_INC)

ifeq ($(SANITIZE),0)
ifneq ($(wildcard $(GDB_PY_INC)/Python.h),)
ALL_TARGETS += $(GDB_MOD) $(BUILD)/gdb/flamekit.py
INSTALL_TARGETS += install-gdb
else
$(warning gdb-plugin: no Python.h for $(GDB_PYTHON) (install python3-dev): the gdb plugin is not built)
endif
endif

$(GDB_MOD): $(GDB_SRCS) gdb-plugin/sampler.h gdb-plugin/interp.h common/python/fkpy.h gdb-plugin/module.map common/flamekit.h $(PROG_LIB) $(BUILD)/libflamekit.a | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  LD      $@")
	$(Q)$(CC) $(GDB_CFLAGS) -shared -Wl,--version-script=gdb-plugin/module.map -Wl,--exclude-libs,ALL \
		-o $@ $(GDB_SRCS) $(PROG_LIB) -Wl,--whole-archive $(BUILD)/libflamekit.a -Wl,--no-whole-archive $(LDFLAGS) -ldw -lelf $(LIB_LIBS)

$(BUILD)/gdb/flamekit.py: gdb-plugin/flamekit.py | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

install-gdb: $(GDB_MOD) $(BUILD)/gdb/flamekit.py
	$(call fk_install,$(BUILD)/gdb/flamekit.py,$(PREFIX)/share/flamekit/gdb,644)
	$(call fk_install,$(GDB_MOD),$(PREFIX)/share/flamekit/gdb,755)
.PHONY: install-gdb
