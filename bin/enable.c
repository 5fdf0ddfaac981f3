// SPDX-License-Identifier: MIT
/* `jitcache enable` / `jitcache disable` (see enable.h). */
#include "bin/enable.h"
#include "bin/admin.h"
#include "shim/preload.h"

#include "config/escape.h"
#include "config/path_trust.h"
#include "config/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WRITTEN_BY "jitcache enable"

void jc_enable_usage(FILE *out)
{
	fputs("       jitcache enable shell          print the line for ~/.profile or ~/.bashrc\n"
	      "                                      (eval \"$(jitcache enable shell)\": now)\n"
	      "       jitcache enable systemd UNIT [--user] [--root DIR] [--force]\n"
	      "                                      a drop-in preloading it into a service,\n"
	      "                                      with a cache directory its user can write\n"
	      "       jitcache enable jupyter [--name NAME] [--python PATH] [--prefix DIR]\n"
	      "                                      a Jupyter kernel that runs with it\n",
	      out);
}

void jc_disable_usage(FILE *out)
{
	fputs("       jitcache disable shell|systemd UNIT|jupyter ...\n"
	      "                                      undo what enable did\n",
	      out);
}

static int fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("jitcache: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return status;
}

/* The library to preload: $JITCACHE_LIB, absolute and (to enable)
 * readable, or NULL (said why). */
static const char *library(int enable)
{
	static char real[PATH_MAX];
	char dir[PATH_MAX];
	const char *lib = getenv("JITCACHE_LIB"), *slash = lib ? strrchr(lib, '/') : NULL;
	/* /usr/lib/..., not /usr/bin/../lib/...; but the name as given: the
	 * soname link (libjitcache.so.1) outlives an upgrade, the file it
	 * points to (libjitcache.so.1.0.0) does not. */
	if (slash && slash > lib && (size_t)(slash - lib) < sizeof dir) {
		memcpy(dir, lib, (size_t)(slash - lib));
		dir[slash - lib] = '\0';
		if (realpath(dir, real) && strlen(real) + strlen(slash) < sizeof real)
			lib = strcat(real, slash);
	}
	if (!lib || lib[0] != '/') {
		fail(1, "JITCACHE_LIB is %s: run this as `jitcache enable`, which sets it",
		     lib ? "not an absolute path" : "not set");
		return NULL;
	}
	if (enable && access(lib, R_OK) != 0) {
		fail(1, "%s: %s", lib, strerror(errno));
		return NULL;
	}
	/* The core it loads on the first GPU call, beside it (shim/preload.h):
	 * without it every GPU program would run uncached, saying so. */
	char core[PATH_MAX + 64];
	const char *last = strrchr(lib, '/');
	snprintf(core, sizeof core, "%.*s%s", (int)(last - lib + 1), lib, JC_CORE_FILE);
	if (enable && access(core, R_OK) != 0) {
		snprintf(core, sizeof core, "%.*s%s", (int)(last - lib + 1), lib, JC_CORE_NAME);
		if (access(core, R_OK) != 0) {
			fail(1, "%s: its core %s is not beside it (%s): reinstall jitcache", lib,
			     JC_CORE_FILE, strerror(errno));
			return NULL;
		}
	}
	if (strpbrk(lib, "\"\\'\n%$` :")) {
		fail(1, "%s: a path with quotes, spaces, colons or %% cannot go in LD_PRELOAD", lib);
		return NULL;
	}
	return lib;
}

/* mkdir -p of path's directories (0755), up to its last '/'. */
static int make_parents(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* path := text, whole or not at all (a temporary file renamed over it). */
static int write_file(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	if (make_parents(path) != 0)
		return -1;
	int fd = jc_temp_open_beside(AT_FDCWD, path, 0600, tmp);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0644) != 0 || jc_temp_write(fd, text, strlen(text)) != 0) {
		jc_temp_discard(AT_FDCWD, fd, tmp);
		return -1;
	}
	return jc_temp_commit(AT_FDCWD, fd, tmp, path, JC_TEMP_RENAME) < 0 ? -1 : 0;
}

/* 1 if path is a file enable wrote (it names WRITTEN_BY), 0 if it is
 * missing, -1 (said why) if it is someone else's. */
static int ours(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : (fail(1, "%s: %s", path, strerror(errno)), -1);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strstr(buf, WRITTEN_BY))
		return 1;
	fail(1, "%s was not written by `jitcache enable`; left alone", path);
	return -1;
}

/* Remove path if enable wrote it, then its directory if that is now empty. */
static int remove_ours(const char *path, const char *what)
{
	int r = ours(path);
	if (r < 0)
		return 1;
	if (r == 0) {
		printf("%s: not enabled (no %s)\n", what, path);
		return 0;
	}
	if (unlink(path) != 0)
		return fail(1, "cannot remove %s: %s", path, strerror(errno));
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir); /* only if empty */
	printf("%s: removed %s\n", what, path);
	return 0;
}

/* ---- shell ---------------------------------------------------------------- */

/* Whether the LD_PRELOAD entry p[0..n) is jitcache's: lib, or any path to
 * a file named libjitcache.so* (another build, an older version's file). */
static int is_jitcache(const char *p, size_t n, const char *lib)
{
	const char *base = p;
	for (const char *q = p; q < p + n; q++)
		if (*q == '/')
			base = q + 1;
	return (n == strlen(lib) && !strncmp(p, lib, n)) ||
	       ((size_t)(p + n - base) >= 14 && !strncmp(base, "libjitcache.so", 14));
}

/* LD_PRELOAD without jitcache (its entries are separated by spaces or colons). */
static void preload_without(const char *lib, char *out, size_t size)
{
	const char *v = getenv("LD_PRELOAD");
	size_t used = 0;
	out[0] = '\0';
	for (const char *p = v ? v : ""; *p; p += strspn(p, " :")) {
		size_t n = strcspn(p, " :");
		if (n && !is_jitcache(p, n, lib) && used + n + 2 < size) {
			used += (size_t)snprintf(out + used, size - used, "%s%.*s", used ? ":" : "",
						 (int)n, p);
		}
		p += n;
	}
}

/* The files a login or interactive shell reads that still turn it on. */
static void say_profiles(const char *lib)
{
	static const char *const names[] = { ".profile", ".bash_profile", ".bash_login",
					      ".bashrc", ".zshenv", ".zprofile", ".zshrc" };
	const char *home = getenv("HOME");
	char path[PATH_MAX], line[4096];
	for (size_t i = 0; home && *home && i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", home, names[i]);
		FILE *f = fopen(path, "r");
		for (int n = 1; f && fgets(line, sizeof line, f); n++)
			if (line[strspn(line, " \t")] != '#' &&
			    (strstr(line, lib) || strstr(line, "jitcache enable shell")))
				printf("# %s:%d still turns it on: remove that line\n", path, n);
		if (f)
			fclose(f);
	}
}

static int shell(int enable, const char *lib, int argc, char **argv)
{
	(void)argv;
	if (argc > 0)
		return fail(2, "usage: jitcache %s shell", enable ? "enable" : "disable");
	if (enable) {
		printf("# jitcache: preload libjitcache into every program this shell starts.\n"
		       "# Add the next line to ~/.profile or ~/.bashrc (`jitcache disable shell`\n"
		       "# undoes it), or run it now: eval \"$(jitcache enable shell)\"\n");
		/* Only while the library is there: a line left behind by an
		 * uninstall must not make every command print the loader's error. */
		printf("if [ -r %s ]; then case \":${LD_PRELOAD-}:\" in *[:\\ ]%s[:\\ ]*) ;; *) export "
		       "LD_PRELOAD=\"${LD_PRELOAD:+$LD_PRELOAD:}%s\" ;; esac; fi\n", lib, lib, lib);
		return 0;
	}
	char rest[8192];
	preload_without(lib, rest, sizeof rest);
	printf("# jitcache: the next line takes libjitcache out of LD_PRELOAD in this shell\n"
	       "# (eval \"$(jitcache disable shell)\"); remove the `jitcache enable shell`\n"
	       "# line from your shell's start-up files for the next ones.\n");
	say_profiles(lib);
	if (rest[0]) {
		fputs("export LD_PRELOAD='", stdout);
		for (const char *p = rest; *p; p++) /* the user's entries may hold a quote */
			fputs(*p == '\'' ? "'\\''" : (char[]){ *p, 0 }, stdout);
		fputs("'\n", stdout);
	} else {
		printf("unset LD_PRELOAD\n");
	}
	return 0;
}

/* ---- systemd -------------------------------------------------------------- */

/* A unit name: no path, no leading dot; "ollama" means "ollama.service". */
static int unit_name(const char *arg, char out[256])
{
	if (!*arg || strchr(arg, '/') || arg[0] == '.' || strlen(arg) > 200 ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.@\\") !=
		    strlen(arg))
		return -1;
	snprintf(out, 256, "%s%s", arg, strchr(arg, '.') ? "" : ".service");
	return 0;
}

/* The name a unit's cache directory takes under jitcache/ ("ollama"). */
static void unit_stem(const char *unit, char out[256])
{
	snprintf(out, 256, "%.*s", (int)strcspn(unit, ".@"), unit);
}

/* The program on PATH called name, or NULL. */
static const char *on_path(const char *name, char out[PATH_MAX])
{
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");
		snprintf(out, PATH_MAX, "%.*s/%s", (int)n, p, name);
		if (n && access(out, X_OK) == 0)
			return out;
		p += n;
	}
	return NULL;
}

/* The directories systemd loads units from, most important first
 * (systemd.unit(5)), under root; --user: a user's. */
static int unit_dirs(const char *root, int user, char dirs[][PATH_MAX], int max)
{
	static const char *const system_dirs[] = { "/etc/systemd/system", "/run/systemd/system",
						   "/usr/local/lib/systemd/system",
						   "/usr/lib/systemd/system", "/lib/systemd/system" };
	static const char *const user_dirs[] = { "/etc/systemd/user", "/usr/local/lib/systemd/user",
						 "/usr/lib/systemd/user" };
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n = 0;
	if (user && xdg && *xdg)
		snprintf(dirs[n++], PATH_MAX, "%s/systemd/user", xdg);
	else if (user && home && *home)
		snprintf(dirs[n++], PATH_MAX, "%s/.config/systemd/user", home);
	if (user && home && *home)
		snprintf(dirs[n++], PATH_MAX, "%s/.local/share/systemd/user", home);
	const char *const *sys = user ? user_dirs : system_dirs;
	size_t count = user ? sizeof user_dirs / sizeof *user_dirs
			    : sizeof system_dirs / sizeof *system_dirs;
	for (size_t i = 0; i < count && n < max; i++)
		snprintf(dirs[n++], PATH_MAX, "%s%s", strcmp(root, "/") ? root : "", sys[i]);
	return n;
}

/* The unit's file (or its template's: foo@.service for foo@x.service) in
 * the first directory that has it, into out; -1 if systemd has none. */
static int find_unit(char dirs[][PATH_MAX], int n, const char *unit, char out[PATH_MAX])
{
	char tmpl[256];
	const char *at = strchr(unit, '@'), *dot = strrchr(unit, '.');
	snprintf(tmpl, sizeof tmpl, "%.*s%s", at && dot > at ? (int)(at - unit + 1) : 0, unit,
		 at && dot > at ? dot : "");
	for (int i = 0; i < n; i++) {
		if (snprintf(out, PATH_MAX, "%s/%s", dirs[i], unit) < PATH_MAX &&
		    access(out, F_OK) == 0)
			return 0;
		if (*tmpl && snprintf(out, PATH_MAX, "%s/%s", dirs[i], tmpl) < PATH_MAX &&
		    access(out, F_OK) == 0)
			return 0;
	}
	return -1;
}

/* The LD_PRELOAD an Environment= line of a unit file sets (the last one it
 * names), into out; an empty Environment= resets it. */
static void environment_line(const char *v, char *out, size_t size)
{
	if (!*v) {
		out[0] = '\0';
		return;
	}
	while (*v) {
		v += strspn(v, " \t");
		char word[4096];
		size_t n = 0;
		char quote = 0;
		for (; *v && (quote || (*v != ' ' && *v != '\t')); v++) {
			if ((*v == '"' || *v == '\'') && (!quote || quote == *v))
				quote = quote ? 0 : *v;
			else if (*v == '\\' && quote && v[1])
				word[n < sizeof word - 1 ? n++ : n] = *++v;
			else if (n < sizeof word - 1)
				word[n++] = *v;
		}
		word[n] = '\0';
		if (!strncmp(word, "LD_PRELOAD=", 11))
			snprintf(out, size, "%s", word + 11);
	}
}

static void file_preload(const char *path, char *out, size_t size)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "Environment=", 12))
			environment_line(line + 12, out, size);
	}
	if (f)
		fclose(f);
}

struct dropin {
	char name[256];
	char path[PATH_MAX + 528];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

/* The LD_PRELOAD the unit's file and its drop-ins (but jitcache's) set,
 * read in systemd's order: the file, then the drop-ins by name, a name in
 * a more important directory hiding the same name in a later one. */
static void unit_preload(const char *file, char dirs[][PATH_MAX], int ndirs, const char *unit,
			 char *out, size_t size)
{
	static struct dropin found[64];
	size_t n = 0;
	out[0] = '\0';
	file_preload(file, out, size);
	for (int i = 0; i < ndirs; i++) {
		char dir[PATH_MAX + 264];
		DIR *d = snprintf(dir, sizeof dir, "%s/%s.d", dirs[i], unit) < (int)sizeof dir
				 ? opendir(dir) : NULL;
		for (struct dirent *e; d && (e = readdir(d)) && n < sizeof found / sizeof *found;) {
			size_t len = strlen(e->d_name), k = 0;
			if (len <= 5 || len >= sizeof found->name || strcmp(e->d_name + len - 5, ".conf") ||
			    !strcmp(e->d_name, "jitcache.conf"))
				continue;
			while (k < n && strcmp(found[k].name, e->d_name))
				k++;
			if (k < n)
				continue;
			snprintf(found[n].name, sizeof found->name, "%s", e->d_name);
			snprintf(found[n++].path, sizeof found->path, "%s/%s", dir, e->d_name);
		}
		if (d)
			closedir(d);
	}
	qsort(found, n, sizeof *found, by_name);
	for (size_t i = 0; i < n; i++)
		file_preload(found[i].path, out, size);
}

/* systemd-analyze verify of the unit, where it is installed: 0, or -1 if
 * it complained about the drop-in itself.  Its complaints about the rest
 * of the unit (a program not installed yet) are shown, not held against
 * the drop-in. */
static int verify(const char *unit, const char *root, int user, const char *dropin)
{
	char tool[PATH_MAX], rootopt[PATH_MAX + 8], line[1024];
	int fds[2];
	if (!on_path("systemd-analyze", tool)) {
		printf("(systemd-analyze is not installed: not verified)\n");
		return 0;
	}
	snprintf(rootopt, sizeof rootopt, "--root=%s", root);
	if (pipe(fds) != 0)
		return 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		char verb[] = "verify", useropt[] = "--user", name[256];
		snprintf(name, sizeof name, "%s", unit);
		char *argv[] = { tool, verb, user ? useropt : rootopt, name, NULL };
		execv(tool, argv);
		_exit(127);
	}
	close(fds[1]);
	FILE *f = pid > 0 ? fdopen(fds[0], "r") : NULL;
	int bad = 0, said = 0;
	while (f && fgets(line, sizeof line, f)) {
		printf("  systemd-analyze: %s", line);
		said = 1;
		bad |= strstr(line, dropin) != NULL;
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (!bad && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !said)
		printf("systemd-analyze verify %s: no complaint\n", unit);
	else if (!bad)
		printf("systemd-analyze verify %s: the complaints above are about the unit, not "
		       "the drop-in\n", unit);
	return bad ? -1 : 0;
}

/* A system unit runs as root or a service's user: refuse to make it run a
 * library another user could rewrite (under --root DIR, the copy in DIR;
 * one not there yet is not checked, and that is said). */
static int library_unsafe(const char *lib, const char *root)
{
	char why[PATH_MAX + 64], inside[PATH_MAX];
	if (*root && strcmp(root, "/")) {
		snprintf(inside, sizeof inside, "%s%s", root, lib);
		if (access(inside, F_OK) != 0) {
			printf("(%s is not in %s yet: who can write it there is not checked)\n", lib,
			       root);
			return 0;
		}
		lib = inside;
	}
	/* along the path as written (a symlink in it can be replaced where it
	 * sits) and as resolved */
	if (jc_path_trusted(lib, 0, NULL, why, sizeof why) == 0)
		return 0;
	fail(1, "refused: other users' programs would run %s, and %s: install jitcache system-wide "
	     "(the .deb, or sudo make install) and enable that one", lib, why);
	return -1;
}

/* The unit's own LD_PRELOAD `own` (jitcache's entries taken out) with lib
 * after it, as an Environment= assignment in systemd's quoting. */
static void preload_with(const char *own, const char *lib, char *out, size_t size)
{
	size_t used = (size_t)snprintf(out, size, "\"LD_PRELOAD=");
	for (const char *p = own; *p && used < size; p += strspn(p, " :")) {
		size_t n = strcspn(p, " :");
		for (size_t i = 0; n && !is_jitcache(p, n, lib) && i <= n && used + 4 < size; i++) {
			char c = i < n ? p[i] : ':';
			if (c == '"' || c == '\\')
				out[used++] = '\\';
			if (c == '%')
				out[used++] = '%';
			out[used++] = c;
		}
		p += n;
	}
	snprintf(out + used, size - used, "%s\"", lib);
}

static int systemd(int enable, const char *lib, int argc, char **argv)
{
	const char *root = "", *arg = NULL;
	int user = 0, force = 0;
	char unit[256], stem[256], path[PATH_MAX], text[PATH_MAX * 2 + 8192];
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--user"))
			user = 1;
		else if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (argv[i][0] != '-' && !arg)
			arg = argv[i];
		else
			arg = NULL, i = argc;
	}
	if (!arg || (user && *root) || (*root && root[0] != '/'))
		return fail(2, "usage: jitcache %s systemd UNIT [--user | --root DIR] [--force] (DIR "
			    "absolute)", enable ? "enable" : "disable");
	if (unit_name(arg, unit) != 0)
		return fail(2, "'%s' is not a systemd unit name", arg);
	unit_stem(unit, stem);
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (user && !(xdg && *xdg) && !(home && *home))
		return fail(1, "--user: neither XDG_CONFIG_HOME nor HOME is set");
	int n;
	if (user && xdg && *xdg)
		n = snprintf(path, sizeof path, "%s/systemd/user/%s.d/jitcache.conf", xdg, unit);
	else if (user)
		n = snprintf(path, sizeof path, "%s/.config/systemd/user/%s.d/jitcache.conf", home,
			     unit);
	else
		n = snprintf(path, sizeof path, "%s/etc/systemd/system/%s.d/jitcache.conf",
			     strcmp(root, "/") ? root : "", unit);
	if (n >= (int)sizeof path)
		return fail(1, "path too long");
	if (!enable)
		return remove_ours(path, unit);
	if (ours(path) < 0)
		return 1;
	char dirs[8][PATH_MAX], file[PATH_MAX], own[4096], preload[8192];
	int ndirs = unit_dirs(*root ? root : "/", user, dirs, 8);
	if (find_unit(dirs, ndirs, unit, file) != 0) {
		if (!force)
			return fail(1, "%s: systemd has no such unit (looked in %s and the other unit "
				    "directories); --force writes the drop-in anyway", unit, dirs[0]);
		file[0] = '\0';
	}
	if (!user && library_unsafe(lib, root) != 0)
		return 1;
	unit_preload(file, dirs, ndirs, unit, own, sizeof own);
	preload_with(own, lib, preload, sizeof preload);
	/* %C is /var/cache for a system unit, ~/.cache for a user's; systemd
	 * makes CacheDirectory= there, owned by the unit's User= (a
	 * DynamicUser= too), before the service starts. */
	snprintf(text, sizeof text,
		 "# Written by `" WRITTEN_BY " systemd %s`: `jitcache disable systemd %s`\n"
		 "# removes it.  Then: systemctl%s daemon-reload; systemctl%s restart %s\n"
		 "# The unit's own LD_PRELOAD%s is kept, before the library: run enable\n"
		 "# again if the unit changes it.\n"
		 "[Service]\n"
		 "Environment=%s\n"
		 "CacheDirectory=jitcache/%s\n"
		 "Environment=JITCACHE_DIR=%%C/jitcache/%s\n",
		 unit, unit, user ? " --user" : "", user ? " --user" : "", unit,
		 own[0] ? "" : " (none now)", preload, stem, stem);
	if (write_file(path, text) != 0)
		return fail(1, "cannot write %s: %s%s", path, strerror(errno),
			    errno == EACCES && !user ? " (a system unit's drop-in: run it as root)" : "");
	printf("%s: wrote %s\n", unit, path);
	if (verify(unit, *root ? root : "/", user, path) != 0) {
		unlink(path);
		return fail(1, "systemd refuses the drop-in (above); removed %s", path);
	}
	if (!*root)
		printf("now: systemctl%s daemon-reload && systemctl%s restart %s\n",
		       user ? " --user" : "", user ? " --user" : "", unit);
	return 0;
}

/* ---- jupyter -------------------------------------------------------------- */

/* Where Jupyter looks for a user's kernels (jupyter_core.paths.jupyter_data_dir
 * on Linux), or DIR/share/jupyter for --prefix DIR. */
static int jupyter_dir(const char *prefix, char out[PATH_MAX])
{
	const char *data = getenv("JUPYTER_DATA_DIR"), *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	if (prefix)
		snprintf(out, PATH_MAX, "%s/share/jupyter", prefix);
	else if (data && *data)
		snprintf(out, PATH_MAX, "%s", data);
	else if (xdg && *xdg)
		snprintf(out, PATH_MAX, "%s/jupyter", xdg);
	else if (home && *home)
		snprintf(out, PATH_MAX, "%s/.local/share/jupyter", home);
	else
		return -1;
	return 0;
}

/* Whether a kernel spec in dir is there for other users: dir (or the
 * nearest directory above it that exists) is root's, outside $HOME. */
static int shared_by_root(const char *dir)
{
	const char *home = getenv("HOME");
	size_t hl = home ? strlen(home) : 0;
	if (hl && !strncmp(dir, home, hl) && (!dir[hl] || dir[hl] == '/'))
		return 0;
	char walk[PATH_MAX];
	struct stat st;
	snprintf(walk, sizeof walk, "%s", dir);
	for (char *slash; stat(*walk ? walk : "/", &st) != 0 && (slash = strrchr(walk, '/'));)
		*slash = '\0';
	return st.st_uid == 0;
}

static int jupyter(int enable, const char *lib, int argc, char **argv)
{
	const char *name = "python3-jitcache", *python = NULL, *prefix = NULL;
	char found[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
	for (int i = 0; i < argc; i++) {
		const char **v = !strcmp(argv[i], "--name")     ? &name
				 : !strcmp(argv[i], "--python") ? &python
				 : !strcmp(argv[i], "--prefix") ? &prefix
								: NULL;
		if (!v || i + 1 >= argc)
			return fail(2, "usage: jitcache %s jupyter [--name NAME] [--python PATH] "
				    "[--prefix DIR]", enable ? "enable" : "disable");
		*v = argv[++i];
	}
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._-") != strlen(name) || name[0] == '.')
		return fail(2, "'%s' is not a Jupyter kernel name (letters, digits, . _ -)", name);
	if (prefix && prefix[0] != '/')
		return fail(2, "--prefix needs an absolute directory");
	if (jupyter_dir(prefix, dir) != 0)
		return fail(1, "no JUPYTER_DATA_DIR, XDG_DATA_HOME or HOME: where do kernels go?");
	if (snprintf(path, sizeof path, "%s/kernels/%s/kernel.json", dir, name) >= (int)sizeof path)
		return fail(1, "%s: path too long", dir);
	if (!enable)
		return remove_ours(path, name);
	if (!python && !(python = on_path("python3", found)))
		return fail(1, "no python3 on PATH: name the kernel's Python with --python");
	if (python[0] != '/' || access(python, X_OK) != 0)
		return fail(1, "--python %s: not an absolute path to a program", python);
	if (!jc_utf8_valid(python) || !jc_utf8_valid(lib))
		return fail(1, "paths that are not UTF-8 cannot be written into kernel.json");
	if (ours(path) < 0)
		return 1;
	if (shared_by_root(dir) && library_unsafe(lib, "") != 0)
		return 1;
	/* jupyter_client starts the kernel with "env" added to its own
	 * environment; "metadata" says who wrote it (disable checks).  The
	 * paths go through the one JSON string writer (quotes escaped). */
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);
	if (!m)
		return fail(1, "out of memory");
	fputs("{\n \"argv\": [", m);
	jc_json_string(m, python);
	fputs(", \"-m\", \"ipykernel_launcher\", \"-f\", \"{connection_file}\"],\n"
	      " \"display_name\": \"Python 3 (jitcache)\",\n"
	      " \"language\": \"python\",\n"
	      " \"env\": {\"LD_PRELOAD\": ", m);
	jc_json_string(m, lib);
	fprintf(m, "},\n \"metadata\": {\"written_by\": \"" WRITTEN_BY " jupyter; `jitcache disable "
		"jupyter --name %s` removes it\", \"debugger\": true}\n}\n", name);
	int failed = fclose(m) != 0 || !text || write_file(path, text) != 0;
	free(text);
	if (failed)
		return fail(1, "cannot write %s: %s", path, strerror(errno));
	printf("%s: wrote %s (kernel \"Python 3 (jitcache)\", %s)\n", name, path, python);
	return 0;
}

int jc_enable_main(int argc, char **argv)
{
	int enable = !strcmp(argv[0], "enable");
	const char *way = argc > 1 ? argv[1] : "";
	const char *lib = library(enable);
	if (!lib)
		return 1;
	if (!strcmp(way, "shell"))
		return shell(enable, lib, argc - 2, argv + 2);
	if (!strcmp(way, "systemd"))
		return systemd(enable, lib, argc - 2, argv + 2);
	if (!strcmp(way, "jupyter"))
		return jupyter(enable, lib, argc - 2, argv + 2);
	/* A shell's name is the shell way; else the nearest way, if near. */
	static const char *const ways[] = { "shell", "systemd", "jupyter" };
	static const char *const shells[] = { "bash", "zsh", "sh", "dash", "ksh", "bashrc", "profile" };
	const char *near = NULL;
	for (size_t i = 0; i < sizeof shells / sizeof *shells; i++)
		if (!strcmp(way, shells[i]))
			near = "shell";
	if (!near && *way)
		near = jc_admin_closest(way, ways, sizeof ways / sizeof *ways);
	if (near)
		return fail(2, "%s: unknown way '%s' (did you mean `jitcache %s %s`?)", argv[0], way,
			    argv[0], near);
	return fail(2, "usage: jitcache %s shell | systemd UNIT | jupyter (see jitcache --help)",
		    argv[0]);
}
