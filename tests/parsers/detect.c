/* detect.c - prints the input format flamekit detects for each FILE (the
 * first 64 KB, as collapse peeks), or "none": the auto-detection tests' probe. */
#include <stdio.h>
#include <stdlib.h>
#include "flamekit.h"

int main(int argc, char **argv)
{
	static char buf[64 * 1024];
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		const char *name = fk_detect_format(buf, n);
		printf("%s %s\n", argv[i], name ? name : "none");
	}
	return rc;
}
