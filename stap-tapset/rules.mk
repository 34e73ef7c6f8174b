# stap-tapset/rules.mk - installs the SystemTap tapset (nothing to build) and
# its example scripts. With PREFIX=/usr the tapset lands in SystemTap's own
# tapset directory and needs no -I; elsewhere `flamekit stap` finds it
# relative to the installed program.
STAP_TAPSET := stap-tapset/flamekit.stp
STAP_EXAMPLES := $(sort $(wildcard stap-tapset/examples/*.stp))

install-stap: $(STAP_TAPSET) $(STAP_EXAMPLES)
	$(call fk_install,$(STAP_TAPSET),$(PREFIX)/share/systemtap/tapset,644)
	$(call fk_install,$(STAP_EXAMPLES),$(PREFIX)/share/flamekit/stap-examples,644)

INSTALL_TARGETS += install-stap
.PHONY: install-stap
