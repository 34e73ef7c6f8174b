/* replay.c - runs the saved fuzz corpus with the ordinary compiler (no libFuzzer
 * needed): `replay CORPUS`, where CORPUS/FORMAT/ holds the inputs of each format
 * fk_format_names() lists, and CORPUS/auto/ those of auto-detection. Each input
 * goes through its parser and through detection, then through every writer, whose
 * outputs are checked (fuzz-one.h). A format without a folder, or a folder that is
 * no format, fails; so does a crash or a broken output. Prints one line per format
 * and the number of inputs run. `replay --self-test` runs the checks on texts known
 * to be sound or broken. */
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

/* The checks catch what they are for: each bad text fails, each good one passes. */
static int self_test(void)
{
	static const struct {
		int kind; /* 0 SVG, 1 HTML, 2 JSON */
		bool good;
		const char *text;
	} cases[] = {
		{ 0, true, "<?xml version=\"1.0\"?>\n<svg a=\"1\"><!-- c --><text>a &lt;&amp;&#39; b</text>"
			   "<script><![CDATA[ if (a < b && c) x(); ]]></script><g/></svg>\n" },
		{ 0, false, "<svg><text>a<b</text></svg>" },
		{ 0, false, "<svg><text>a & b</text></svg>" },
		{ 0, false, "<svg><text>&nbsp;</text></svg>" },
		{ 0, false, "<svg><g><text>x</g></text></svg>" },
		{ 0, false, "<svg><g></svg>" },
		{ 0, false, "<svg title=\"a\"b\"/>" },
		{ 0, false, "<svg title=\"a<b\"/>" },
		{ 0, false, "<svg><!-- a -- b --></svg>" },
		{ 0, false, "<svg><text>a]]>b</text></svg>" },
		{ 0, false, "<svg><script><![CDATA[ a ]]> b]]></script></svg>" },
		{ 0, false, "<svg>\x01</svg>" },
		{ 0, false, "<svg>\xc3</svg>" },
		{ 0, false, "<svg/><svg/>" },
		{ 1, true, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>a>b{}</style>"
			   "<script type=\"application/json\">{\"t\":\"\\u003c/script>\",\"n\":[1,-2.5e3,true,null]}"
			   "</script><script>if (a < b) x();</script></head><body hidden></body></html>" },
		{ 1, false, "<html><script type=\"application/json\">{\"t\":\"</script><b>\"}</script></html>" },
		{ 1, false, "<html><script type=\"application/json\">{\"n\":NaN}</script></html>" },
		{ 1, false, "<html><script>x = \"<!--\";</script></html>" },
		{ 1, false, "<html><body><p>a<b</p></body></html>" },
		{ 1, true, "<html><body><ul><li>a<li>b</ul><p>c</body>" },
		{ 1, false, "<html><body><div>a</body></html>" },
		{ 1, true, "<html><body><div class=a id=b-1>x</div></body></html>" },
		{ 1, false, "<html><body><div class=a\"b>x</div></body></html>" },
		{ 0, false, "<svg width=1/>" },
		{ 1, false, "<html><script type=application/json>{\"a\":}</script></html>" },
		{ 1, false, "<html><script>never closed</html>" },
		{ 2, true, " {\"a\": [1, 0.5, -0, 1e-7, \"\\u00e9\\n\\\"\", {}], \"\": false} " },
		{ 2, false, "{\"a\": [1,]}" },
		{ 2, false, "{\"a\": Infinity}" },
		{ 2, false, "{\"a\": 01}" },
		{ 2, false, "[\"\x01\"]" },
		{ 2, false, "[\"\\x\"]" },
		{ 2, false, "[\"\xff\"]" },
		{ 2, false, "{\"a\" 1}" },
		{ 2, false, "[1] [2]" },
		{ 2, false, "\"open" },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].text, *why;
		size_t n = strlen(t), at = 0;
		if (cases[i].kind == 2) {
			why = fk_check_text(t, n, &at);
			if (!why)
				why = fk_check_json(t, n, &at);
		} else {
			fk_mscan m;
			why = fk_check_markup(&m, t, n, cases[i].kind == 1, &at);
		}
		if (!why != cases[i].good) {
			fprintf(stderr, "self-test %zu: %s taken as %s (%s)\n", i, t, why ? "bad" : "good",
				why ? why : "no complaint");
			bad++;
		}
	}
	printf("self-test: %zu cases, %d wrong\n", sizeof(cases) / sizeof(cases[0]), bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--self-test"))
		return self_test();
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
