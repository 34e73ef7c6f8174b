/* fuzz.c - libFuzzer target for one input format, chosen at build time with
 * -DFK_FUZZ_FORMAT='"name"' ("auto" = detection first). Built by `make fuzz`. */
#include "fuzz-one.h"

#ifndef FK_FUZZ_FORMAT
#error "build with -DFK_FUZZ_FORMAT='\"format\"'"
#endif

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fk_set_print(fk_fuzz_quiet, NULL);
	sink = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *fmt = strcmp(FK_FUZZ_FORMAT, "auto") ? FK_FUZZ_FORMAT : NULL;
	fk_fuzz_one(fmt, data, size, sink);
	return 0;
}
