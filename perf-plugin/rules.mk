# perf-plugin/rules.mk - flamekit-dlfilter.so (perf script --dlfilter) and perf-flame.
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
