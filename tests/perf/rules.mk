# tests/perf/rules.mk - the perf script parser's C test program (library API level).
TEST_DEPS += $(BUILD)/tests/perf-api

$(BUILD)/tests/perf-api: tests/perf/perf-api.c tests/unit/unit.h $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) $(LIB_LIBS)

TEST_DEPS += $(BUILD)/tests/perf-oom
$(BUILD)/tests/perf-oom: tests/perf/perf-oom.c $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(LIB_LIBS)
