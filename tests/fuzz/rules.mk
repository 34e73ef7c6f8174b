# tests/fuzz/rules.mk - libFuzzer targets (one per input format: parse, then every
# writer, outputs checked) and the replay driver that runs the saved corpus in every
# `make test`.
#   make fuzz                      build $(BUILD)/fuzz/fuzz-FORMAT with clang
#   make fuzz-run FUZZ_TIME=60     run each target FUZZ_TIME seconds (new inputs
#                                  go to $(BUILD)/fuzz/work/FORMAT, crashes to
#                                  $(BUILD)/fuzz/crash-FORMAT-*, the log to
#                                  $(BUILD)/fuzz/log-FORMAT.txt; one summary line
#                                  each, also in $(BUILD)/fuzz/summary.txt);
#                                  FUZZ_FORMATS="pprof sample" runs only those
#   make fuzz-merge                minimize tests/fuzz/corpus/FORMAT with the new
#                                  inputs: the fewest that reach every edge,
#                                  plus the named seeds and crash-* files
# The formats come from the one list, FK_FORMATS in common/formats/parse.c (X(name)
# with '_' for '-'), plus "auto" (detection first). `make fuzz-formats` prints them.
FUZZ_FORMATS ?= $(shell sed -n '/^\#define FK_FORMATS(X)/,/[^\\]$$/p' common/formats/parse.c | \
	grep -o '\<X([a-z0-9_]*)' | sed 's/^X(\(.*\))$$/\1/; s/_/-/g') auto
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -Icommon -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_OBJS := $(LIB_SRCS:common/%.c=$(FUZZ_DIR)/obj/%.o) $(PAGE_GEN:$(BUILD)/common/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS := $(FUZZ_FORMATS:%=$(FUZZ_DIR)/fuzz-%)

$(FUZZ_DIR)/obj/render/page/%.o: $(BUILD)/common/render/page/%.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/%.o: common/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/fuzz-%: tests/fuzz/fuzz.c tests/fuzz/fuzz-one.h tests/fuzz/fuzz-check.h $(FUZZ_OBJS)
	@$(if $(filter 1,$(V)),,echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -DFK_FUZZ_FORMAT='"$*"' -o $@ \
		tests/fuzz/fuzz.c $(FUZZ_OBJS) $(LIB_LIBS)

fuzz: $(FUZZ_BINS)

fuzz-formats:
	@echo $(FUZZ_FORMATS)

fuzz-run: fuzz
	$(Q)for f in $(FUZZ_FORMATS); do \
		mkdir -p $(FUZZ_DIR)/work/$$f; \
		echo "fuzzing $$f for $(FUZZ_TIME)s (log: $(FUZZ_DIR)/log-$$f.txt)"; \
		$(FUZZ_DIR)/fuzz-$$f -max_total_time=$(FUZZ_TIME) -max_len=8192 -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crash-$$f- \
			$(FUZZ_DIR)/work/$$f tests/fuzz/corpus/$$f 2>&1 | \
			bash tests/fuzz/fuzz-log.sh $$f $(FUZZ_DIR)/log-$$f.txt | tee -a $(FUZZ_DIR)/summary.txt; \
	done

# The saved corpus becomes a smallest set of inputs that reaches every edge the saved
# and the new ones reach (-set_cover_merge on edges alone: with hit counts it would
# keep megabytes), plus the named files (real seeds, crash-*).
fuzz-merge: fuzz
	$(Q)for f in $(FUZZ_FORMATS); do \
		m=$(FUZZ_DIR)/merged/$$f; rm -rf $$m; mkdir -p $$m $(FUZZ_DIR)/work/$$f; \
		$(FUZZ_DIR)/fuzz-$$f -set_cover_merge=1 -use_counters=0 -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
			$$m tests/fuzz/corpus/$$f $(FUZZ_DIR)/work/$$f > $(FUZZ_DIR)/merge-$$f.txt 2>&1 || \
			{ tail -5 $(FUZZ_DIR)/merge-$$f.txt; exit 1; }; \
		for n in tests/fuzz/corpus/$$f/*; do \
			case $${n##*/} in ????????????????????????????????????????) ;; \
			*) rm -f $$m/$$(sha1sum < $$n | cut -c1-40); cp $$n $$m/ ;; esac; \
		done; \
		rm -rf tests/fuzz/corpus/$$f && mv $$m tests/fuzz/corpus/$$f; \
		echo "$$f: $$(ls tests/fuzz/corpus/$$f | wc -l) files, $$(du -sb tests/fuzz/corpus/$$f | cut -f1) bytes"; \
	done

# The replay driver: normal compiler, normal flags (sanitizers with SANITIZE=1).
$(BUILD)/tests/fuzz/replay: tests/fuzz/replay.c tests/fuzz/fuzz-one.h tests/fuzz/fuzz-check.h $(BUILD)/libflamekit.a common/flamekit.h
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -o $@ $< $(BUILD)/libflamekit.a $(BASE_LDFLAGS) $(LIB_LIBS)
TEST_DEPS += $(BUILD)/tests/fuzz/replay

.SECONDARY: $(FUZZ_OBJS)
.PHONY: fuzz fuzz-run fuzz-merge fuzz-formats
