# tests/rules.mk - C unit tests (tests/unit/*.c, one program each, linked
# with the static library) and the fragments of test subdirectories.
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_DEPS += $(UNIT_BINS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libflamekit.a common/flamekit.h common/internal.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) $(TEST_LDFLAGS_$(notdir $@)) $(LIB_LIBS)

# test-oom fails the library's allocations one at a time.
TEST_LDFLAGS_test-oom := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

-include $(filter-out tests/rules.mk,$(wildcard tests/*/rules.mk))
