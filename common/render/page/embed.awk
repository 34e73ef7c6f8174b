# embed.awk - turns one page file (.js/.css) into a C file holding it as one
# NUL-terminated string named `sym` (run by common/rules.mk at build time). The
# file's opening comment lines ("// ..." or one-line "/* ... */") are not embedded.
BEGIN {
	printf "/* generated from %s by common/render/page/embed.awk: edit that file */\n", src
	printf "const char %s[] =\n", sym
	head = 1
}
head && (/^\/\/ / || /^\/\/$/ || /^\/\*.*\*\/$/) { next }
{
	head = 0
	printf "\t\"%s\\n\"\n", esc($0)
}
# C string escapes, one character at a time (gsub's replacement text treats
# backslashes differently in each awk).
function esc(s,    out, i, c) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" || c == "\"")
			out = out "\\" c
		else if (c == "\t")
			out = out "\\t"
		else
			out = out c
	}
	return out
}
END { printf "\t\"\";\n" }
