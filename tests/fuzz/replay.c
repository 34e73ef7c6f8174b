/* replay.c - runs the saved fuzz corpus with the ordinary compiler (no libFuzzer
 * needed): `replay CORPUS`, where CORPUS/FORMAT/ holds the inputs of each format
 * fk_format_names() lists, and CORPUS/auto/ those of auto-detection. Each input
 * goes through its parser and through detection, then through every writer, whose
 * outputs are checked (fuzz-one.h). A format without a folder, or a folder that is
 * no format, fails; so does a crash or a broken output. Prints one line per format
 * and the number of inputs run. */
#include <dirent.h>
#include <errno.h>
#include "fuzz-one.h"

static int replay_file(const char *fmt, const char *path)
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
	fk_fuzz_what = path;
	fk_fuzz_one(fmt, buf, len, FK_FUZZ_ALL);
	if (fmt)
		fk_fuzz_one(NULL, buf, len, FK_FUZZ_ALL);
	free(buf);
	return 0;
}

static bool is_format(const char *name)
{
	if (!strcmp(name, "auto"))
		return true;
	for (const char *const *n = fk_format_names(); *n; n++)
		if (!strcmp(*n, name))
			return true;
	return false;
}

/* Replays CORPUS/name: the number of files, or -1 after a message. */
static long replay_dir(const char *corpus, const char *name)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", corpus, name);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: %s: %s (every format needs a corpus folder)\n", dir,
			strerror(errno));
		return -1;
	}
	long files = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (replay_file(strcmp(name, "auto") ? name : NULL, path)) {
			files = -1;
			break;
		}
		files++;
	}
	closedir(d);
	if (files == 0)
		fprintf(stderr, "replay: %s: empty corpus folder\n", dir);
	return files > 0 ? files : -1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: replay CORPUS\n");
		return 2;
	}
	fk_set_print(fk_fuzz_quiet, NULL);
	unsigned long files = 0;
	int errors = 0;
	const char *const *names = fk_format_names();
	for (size_t i = 0;; i++) {
		const char *name = names[i] ? names[i] : "auto";
		long n = replay_dir(argv[1], name);
		if (n < 0)
			errors++;
		else
			files += (unsigned long)n;
		printf("%-12s %ld\n", name, n);
		if (!names[i])
			break;
	}
	DIR *d = opendir(argv[1]);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !is_format(e->d_name)) {
			fprintf(stderr, "replay: %s/%s: no such format (a stale corpus folder?)\n",
				argv[1], e->d_name);
			errors++;
		}
	if (d)
		closedir(d);
	printf("replayed %lu corpus files\n", files);
	return errors ? 1 : 0;
}
