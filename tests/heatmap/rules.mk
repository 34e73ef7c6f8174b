# tests/heatmap/rules.mk - the heat map's C API test (allocations wrapped for
# failure injection), run by tests/heatmap/t-unit.sh.
TEST_DEPS += $(BUILD)/tests/test-heatmap

$(BUILD)/tests/test-heatmap: tests/heatmap/test-heatmap.c $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(LIB_LIBS)
