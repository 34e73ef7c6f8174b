/* replay.c - runs every saved fuzz corpus file through its parser with the
 * ordinary compiler (no libFuzzer needed): `replay DIR...`, where each DIR is
 * tests/fuzz/corpus/FORMAT. Prints how many inputs ran; a crash fails the test. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include "fuzz-one.h"

static int replay_file(const char *fmt, const char *path, FILE *sink)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		return -1;
	}
	/* Through its own parser and through auto-detection. */
	fk_fuzz_one(fmt, buf, len, sink);
	fk_fuzz_one(NULL, buf, len, sink);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	fk_set_print(fk_fuzz_quiet, NULL);
	FILE *sink = fopen("/dev/null", "w");
	unsigned files = 0, errors = 0;
	for (int i = 1; i < argc; i++) {
		char *copy = strdup(argv[i]);
		const char *fmt = copy ? basename(copy) : "auto";
		DIR *d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			errors++;
			free(copy);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (replay_file(strcmp(fmt, "auto") ? fmt : NULL, path, sink))
				errors++;
			else
				files++;
		}
		closedir(d);
		free(copy);
	}
	if (sink)
		fclose(sink);
	printf("replayed %u corpus files\n", files);
	return errors ? 1 : 0;
}
