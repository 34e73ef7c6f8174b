# common/rules.mk - the core library (libflamekit.a/.so, flamekit.pc) and the CLI.
# The library's layers, in data-flow order: base (errors, memory, hashing), model
# (the profile), formats (readers and parsers, one file per format), render (views),
# export (writers of other tools' formats: pprof, speedscope).
LIB_DIRS := common/base common/model common/formats common/render common/export
LIB_SRCS := $(sort $(wildcard $(LIB_DIRS:%=%/*.c)))
LIB_HDRS := common/flamekit.h common/internal.h $(wildcard $(LIB_DIRS:%=%/*.h))
# Page code (script and style of the SVG and HTML views) lives as .js/.css files,
# each embedded as one string fk_page_<file> (svg.js -> fk_page_svg_js).
PAGE_SRCS := $(sort $(wildcard common/render/page/*.js common/render/page/*.css))
# The viewer's script is several files by concern (page/viewer/NN-*.js), joined in name
# order into one function scope at build time: $(BUILD)/common/render/page/viewer.js.
VIEWER_SRCS := $(sort $(wildcard common/render/page/viewer/*.js))
PAGE_GEN := $(PAGE_SRCS:common/%=$(BUILD)/common/%.c) $(BUILD)/common/render/page/viewer.js.c
LIB_OBJS := $(LIB_SRCS:common/%.c=$(BUILD)/common/%.o) $(PAGE_GEN:%.c=%.o)
# The programs' helper layer (common/prog: not part of the library's ABI), a static
# archive linked by the CLI, perf-flame, the perf dlfilter and the Python module.
PROG_SRCS := $(sort $(wildcard common/prog/*.c))
PROG_OBJS := $(PROG_SRCS:common/%.c=$(BUILD)/common/%.o)
PROG_LIB := $(BUILD)/libfkprog.a
CLI_SRCS := $(sort $(wildcard common/cli/*.c))
CLI_OBJS := $(CLI_SRCS:common/cli/%.c=$(BUILD)/cli/%.o)
LIB_LIBS := -lz -ldeflate -lzstd -lm -lpthread

ALL_TARGETS += $(PAGE_GEN) $(BUILD)/libflamekit.a $(BUILD)/libflamekit.so $(BUILD)/flamekit.pc $(BUILD)/flamekit

$(BUILD)/common/%.o: common/%.c $(LIB_HDRS) | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -c $< -o $@

$(BUILD)/common/render/page/%.c: common/render/page/% common/render/page/embed.awk | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	$(Q)awk -v sym=fk_page_$(subst .,_,$*) -v src=$< -f common/render/page/embed.awk $< > $@.tmp && mv $@.tmp $@

# each part's opening comment lines left out, as embed.awk does for a whole file
$(BUILD)/common/render/page/viewer.js: $(VIEWER_SRCS) | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	$(Q){ echo '// viewer.js - generated from common/render/page/viewer/*.js by common/rules.mk'; \
	  echo '(function () {'; echo "'use strict';"; \
	  awk 'FNR == 1 { head = 1 } head && (/^\/\/ / || /^\/\/$$/) { next } { head = 0; print }' $(VIEWER_SRCS); \
	  echo '})();'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/common/render/page/viewer.js.c: $(BUILD)/common/render/page/viewer.js common/render/page/embed.awk
	$(Q)awk -v sym=fk_page_viewer_js -v src=common/render/page/viewer/ -f common/render/page/embed.awk $< > $@.tmp && mv $@.tmp $@

$(BUILD)/common/render/page/%.o: $(BUILD)/common/render/page/%.c
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -c $< -o $@

$(BUILD)/common/prog/%.o: common/prog/%.c common/flamekit.h $(wildcard common/prog/*.h) | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -c $< -o $@

$(PROG_LIB): $(PROG_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/cli/%.o: common/cli/%.c common/flamekit.h $(wildcard common/prog/*.h) $(wildcard common/cli/*.h) | $(BUILD)/.dir
	@mkdir -p $(dir $@)
	@$(if $(filter 1,$(V)),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) -c $< -o $@

$(BUILD)/libflamekit.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libflamekit.so: $(LIB_OBJS) common/libflamekit.map
	@$(if $(filter 1,$(V)),,echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libflamekit.so.0 -Wl,--version-script=common/libflamekit.map \
		-o $@ $(LIB_OBJS) $(BASE_LDFLAGS) $(LIB_LIBS)

# Regenerated every time: it embeds PREFIX, which may differ per invocation.
$(BUILD)/flamekit.pc: common/flamekit.pc.in common/flamekit.h FORCE | $(BUILD)/.dir
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# The CLI links the static library so it runs from the build tree.
$(BUILD)/flamekit: $(CLI_OBJS) $(PROG_LIB) $(BUILD)/libflamekit.a
	@$(if $(filter 1,$(V)),,echo "  LD      $@")
	$(Q)$(CC) -o $@ $(CLI_OBJS) $(PROG_LIB) $(BUILD)/libflamekit.a $(BASE_LDFLAGS) $(LIB_LIBS)

# Fail on any exported symbol without the fk_ prefix.
checksymbols: $(BUILD)/libflamekit.so
	$(Q)bad=$$(nm -D --defined-only $< | awk '$$2 ~ /[TDBR]/ {print $$3}' | grep -v '^fk_' || true); \
	if [ -n "$$bad" ]; then echo "exported symbols without fk_ prefix:" $$bad >&2; exit 1; fi

install-core: build-all
	$(call fk_install,$(BUILD)/flamekit,$(PREFIX)/bin,755)
	$(call fk_install,$(BUILD)/libflamekit.a,$(PREFIX)/lib,644)
	$(Q)install -m 755 $(BUILD)/libflamekit.so $(DESTDIR)$(PREFIX)/lib/libflamekit.so.$(VERSION)
	$(Q)ln -sf libflamekit.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libflamekit.so.0
	$(Q)ln -sf libflamekit.so.0 $(DESTDIR)$(PREFIX)/lib/libflamekit.so
	$(Q)printf '%s\n' $(PREFIX)/lib/libflamekit.so.$(VERSION) $(PREFIX)/lib/libflamekit.so.0 $(PREFIX)/lib/libflamekit.so >> $(MANIFEST).tmp
	$(call fk_install,common/flamekit.h,$(PREFIX)/include/flamekit,644)
	$(call fk_install,$(BUILD)/flamekit.pc,$(PREFIX)/lib/pkgconfig,644)
	$(call fk_install,docs/flamekit.1,$(PREFIX)/share/man/man1,644)
INSTALL_TARGETS += install-core
TEST_DEPS += checksymbols
.PHONY: checksymbols install-core FORCE
FORCE:
