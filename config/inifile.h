/*
 * inifile.h — reads an ini file line by line, each line whole.
 *
 * The grammar is inih's (which this replaces; Debian's inih cuts lines at 200
 * bytes and hands the pieces on as separate lines):
 *
 *   ; comment             # comment            (whole lines only)
 *   [section]             ; a comment may follow
 *   name = value          ; value ends at " ;" (a ';' after whitespace)
 *   name : value
 *
 * Names and values are trimmed of spaces and tabs; a UTF-8 byte-order mark
 * at the start and "\r\n" line ends are accepted.  Unlike inih, an indented
 * line is an ordinary line, never the continuation of the previous value.
 *
 * Lines may be up to JC_INI_MAX_LINE bytes (enough for any PATH_MAX path);
 * a longer line, a line holding a NUL byte, and any line that is none of the
 * above are reported to on_error with their line number and skipped.
 *
 *   static void on_value(void *user, int line, const char *section,
 *                        const char *name, const char *value) { ... }
 *   static void on_error(void *user, int line, const char *why) { ... }
 *   if (jc_ini_parse(file, on_value, on_error, user) != 0) ... errno ...
 *
 * Line numbers count from 1.  The strings passed to the callbacks live until
 * the callback returns.  Returns 0 once the whole file was read, -1 if
 * reading failed or memory ran out (errno set; callbacks made so far stand).
 */
#ifndef JITCACHE_INIFILE_H
#define JITCACHE_INIFILE_H

#include <stdio.h>

#define JC_INI_MAX_LINE 8192

typedef void jc_ini_value_fn(void *user, int line, const char *section, const char *name,
			     const char *value);
typedef void jc_ini_error_fn(void *user, int line, const char *why);

int jc_ini_parse(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error, void *user);

#endif
