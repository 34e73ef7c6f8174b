# tests/gdb/rules.mk - the target programs the gdb plugin's tests and benchmark attach to:
# fk-target (with symbols) and fk-target-stripped (strip --strip-all of the same binary).
FK_TARGET := $(BUILD)/tests/gdb/fk-target
ifeq ($(SANITIZE),0)
TEST_DEPS += $(FK_TARGET) $(FK_TARGET)-stripped
endif

$(FK_TARGET): tests/gdb/fk-target.c tests/workload.h | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) -O2 -g -D_GNU_SOURCE -fno-optimize-sibling-calls -pthread -o $@ $<

$(FK_TARGET)-stripped: $(FK_TARGET)
	$(Q)strip --strip-all -o $@ $<
