/* presets.c - what a graph is called and how it is coloured by default, from what
 * its profile counts (unit and kind): off-CPU time says "us" in blue, perf
 * cpu-clock periods say "ns". */
#include "internal.h"

void fk_svg_opts_defaults(fk_svg_opts *o, const fk_profile *p)
{
	int kind = p ? fk_profile_kind(p) : FK_KIND_CPU;
	const char *unit = p ? fk_profile_unit(p) : NULL;
	if (!o->countname)
		o->countname = unit && *unit ? unit : "samples";
	if (!o->colors)
		o->colors = kind == FK_KIND_OFFCPU || kind == FK_KIND_IO || kind == FK_KIND_OFFWAKE
				    ? "io" : kind == FK_KIND_MEM ? "mem" : "hot";
	if (!o->title && kind == FK_KIND_IO)
		o->title = o->inverted ? "I/O Icicle Graph" : "I/O Flame Graph";
	if (!o->title && kind == FK_KIND_MEM)
		o->title = o->inverted ? "Memory Icicle Graph" : "Memory Flame Graph";
	if (!o->title && kind == FK_KIND_OFFWAKE)
		o->title = o->inverted ? "Off-Wake Time Icicle Graph" : "Off-Wake Time Flame Graph";
	if (!o->title && kind == FK_KIND_OFFCPU)
		o->title = o->flamechart ? "Off-CPU Time Flame Chart"
			   : o->inverted ? "Off-CPU Time Icicle Graph" : "Off-CPU Time Flame Graph";
	if (!o->title && kind == FK_KIND_ONOFFCPU)
		o->title = o->flamechart ? "On/Off-CPU Time Flame Chart"
			   : o->inverted ? "On/Off-CPU Time Icicle Graph" : "On/Off-CPU Time Flame Graph";
}
