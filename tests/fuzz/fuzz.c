/* fuzz.c - libFuzzer target for one input format, chosen at build time with
 * -DFK_FUZZ_FORMAT='"name"' ("auto" = detection first): each input is parsed, then
 * written by the writers (one page view per input) and the outputs checked
 * (fuzz-one.h). Built by `make fuzz`, one target per format of FK_FORMATS. */
#include "fuzz-one.h"

#ifndef FK_FUZZ_FORMAT
#error "build with -DFK_FUZZ_FORMAT='\"format\"'"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fk_set_print(fk_fuzz_quiet, NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *fmt = strcmp(FK_FUZZ_FORMAT, "auto") ? FK_FUZZ_FORMAT : NULL;
	fk_fuzz_one(fmt, data, size, 0);
	return 0;
}
