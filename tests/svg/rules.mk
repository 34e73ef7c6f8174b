# tests/svg/rules.mk - the renderer's C API test (allocations wrapped for
# failure injection), run by tests/svg/t-unit.sh.
TEST_DEPS += $(BUILD)/tests/test-svg

$(BUILD)/tests/test-svg: tests/svg/test-svg.c $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(LIB_LIBS)
