/* stap-runtime.h - what `flamekit stap` checks about SystemTap's runtime and
 * the kernel it builds for: runtime fixes a target kernel needs (applied to a
 * cached copy, passed with -R) and where kernel symbols will come from. */
#ifndef FK_STAP_RUNTIME_H
#define FK_STAP_RUNTIME_H

#include <stdbool.h>

/* The kernel release stap builds for: explicit (--kernel-release), else the
 * running kernel, else (remote) the only kernel whose build tree is installed,
 * since stap compiles remote modules here. NULL (and *why set) if unknown.
 * Returns malloc'd text. */
char *stap_target_release(const char *explicit_rel, bool remote, const char **why);

/* The runtime directory to pass with -R for release rel, or NULL when the
 * installed runtime needs no fix for that kernel (or cannot be checked: no
 * build tree, runtime not found). Makes the patched copy in the user's cache
 * directory once. *failed is set (message printed) when a copy was needed but
 * could not be made. notes: print what was decided to stderr. */
char *stap_runtime_for(const char *stap, const char *rel, bool notes, bool *failed);

/* Whether stap, building for rel on this machine, finds kernel symbols for rel:
 * rel is the running kernel, or its debuginfo (vmlinux) is installed. */
bool stap_kernel_symbols_ok(const char *rel);

/* Whether path looks like a /proc/kallsyms copy (has the _stext symbol). */
bool stap_kallsyms_file_ok(const char *path);

#endif
