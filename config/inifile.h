// SPDX-License-Identifier: MIT
/*
 * inifile.h — reads an ini file with inih, line by line, each line whole or
 * not at all.
 *
 * The grammar is inih's:
 *
 *   ; comment             # comment            (whole lines only)
 *   [section]             ; a comment may follow
 *   name = value          ; value ends at " ;" (a ';' after whitespace)
 *   name : value
 *
 * Names and values are trimmed of spaces and tabs; a UTF-8 byte-order mark
 * at the start and "\r\n" line ends are accepted.  Unlike plain inih, an
 * indented line is an ordinary line, never the continuation of the previous
 * value.
 *
 * Why a wrapper: Debian's inih reads lines into a buffer of INI_MAX_LINE
 * (200) bytes and hands the rest of a longer line on as if it were the next
 * line, so a long `dir = ` line became a shorter directory and later lines
 * got the wrong numbers.  Here lines are read by jitcache and given to inih
 * one at a time: a line longer than inih takes (JC_INI_MAX_LINE bytes, 198
 * with Debian's build) and a line holding a NUL byte are reported to
 * on_error with their line number and skipped whole, and line numbers stay
 * true.  (The environment takes values of any length: JITCACHE_DIR=...)
 *
 *   static void on_value(void *user, int line, const char *section,
 *                        const char *name, const char *value) { ... }
 *   static void on_error(void *user, int line, const char *why) { ... }
 *   if (jc_ini_parse(file, on_value, on_error, user) != 0) ... errno ...
 *
 * jc_ini_parse_long_values() reads files whose values are long by nature
 * (AWS's credentials files: a session token is a line of a thousand
 * bytes): a name = value line too long for inih is read whole if its name
 * and '=' fit; inih parses its start, and the rest of the value is ended by
 * inih's rule (at a ';' after a blank, trailing blanks trimmed).  Other
 * long lines are reported as above.
 *
 * Line numbers count from 1.  A syntax error (a line that is neither a
 * section, a comment nor name = value) is reported for the first such line.
 * The strings passed to the callbacks live until the callback returns.
 * Returns 0 once the whole file was read, -1 if reading failed or memory ran
 * out (errno set; callbacks made so far stand).
 */
#ifndef JITCACHE_INIFILE_H
#define JITCACHE_INIFILE_H

#include <ini.h>
#include <stdio.h>

/* The longest line inih takes whole, without its "\n". */
#define JC_INI_MAX_LINE (INI_MAX_LINE - 2)

typedef void jc_ini_value_fn(void *user, int line, const char *section, const char *name,
			     const char *value);
typedef void jc_ini_error_fn(void *user, int line, const char *why);

int jc_ini_parse(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error, void *user);
int jc_ini_parse_long_values(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error,
			     void *user);

#endif
