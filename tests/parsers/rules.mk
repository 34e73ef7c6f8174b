# tests/parsers/rules.mk - the format-detection probe used by tests/parsers/t-detect.sh.
$(BUILD)/tests/parsers/fk-detect: tests/parsers/detect.c $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) $(LIB_LIBS)
TEST_DEPS += $(BUILD)/tests/parsers/fk-detect

# Allocation-failure test of the parsers: the library's allocations are wrapped.
$(BUILD)/tests/parsers/fk-oom: tests/parsers/oom.c $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(LIB_LIBS)
TEST_DEPS += $(BUILD)/tests/parsers/fk-oom

# A shim that cuts an input file short as soon as flamekit maps it (t-cut-short.sh).
$(BUILD)/tests/parsers/fk-cut.so: tests/parsers/cut.c | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) -O2 -fPIC -shared -o $@ $< -ldl
TEST_DEPS += $(BUILD)/tests/parsers/fk-cut.so
