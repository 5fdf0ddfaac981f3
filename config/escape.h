// SPDX-License-Identifier: MIT
/*
 * escape.h — showing what came from a program (its name, build options,
 * environment values, include paths) without letting it speak for itself:
 * a newline in a build option must not forge a line of a report, an escape
 * sequence must not reach the terminal, and JSON must stay valid UTF-8.
 *
 *   char shown[4 * 160 + 1];
 *   jc_escape_text(shown, sizeof shown, value, strlen(value));
 *   printf("options: %s\n", shown);
 *   jc_json_string(stdout, value);   // "..." with its quotes
 *
 * Text (C-style): \n, \r, \t, \\ and \xNN for every other byte below 0x20,
 * 0x7f, and every byte >= 0x80 that is not part of valid UTF-8 for a
 * printable character (U+00A0 and up; the C1 controls U+0080..U+009F are
 * escaped byte by byte).  Valid UTF-8 text (a path with "é") is kept.
 *
 * JSON: '"' and '\' escaped, control characters (below 0x20, 0x7f and
 * U+0080..U+009F) as \u00XX, valid UTF-8 kept, and each byte that is not
 * part of valid UTF-8 as \ufffd (the replacement character): the output is
 * always valid UTF-8 JSON.  Neither function allocates.
 */
#ifndef JITCACHE_ESCAPE_H
#define JITCACHE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* s[0..len) escaped into out (size bytes, NUL-terminated; cut before an
 * escape that does not fit).  Returns out. */
char *jc_escape_text(char *out, size_t size, const char *s, size_t len);

/* The NUL-terminated s as a JSON string, quotes included, to f. */
void jc_json_string(FILE *f, const char *s);

/* 1 if the NUL-terminated s is valid UTF-8 throughout (jc_json_string()
 * then writes it unchanged but for escapes: a path written into a JSON
 * file another program reads back), else 0. */
int jc_utf8_valid(const char *s);

#endif
