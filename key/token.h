// SPDX-License-Identifier: MIT
/*
 * token.h — the preprocessing tokens of a line, as far as the key's scans
 * need them: where each identifier is, with string and character literals
 * and numbers skipped whole, so that the letters inside them ("__has_",
 * 1e__has) are never taken for names.
 *
 *   for (const char *p = text; p < end;) {
 *       enum jc_token kind;
 *       const char *next = jc_token(p, end, &kind);
 *       if (kind == JC_TOKEN_NAME) ...the identifier [p, next)...
 *       p = next;
 *   }
 *
 * A literal runs to its closing quote (a backslash escapes the next
 * character) or to end; a pp-number is a digit, or a '.' before one, then
 * identifier characters, '.', and a sign after e, E, p or P.  Anything else
 * is one character of kind JC_TOKEN_OTHER (operators, blanks, '#').
 */
#ifndef JITCACHE_KEY_TOKEN_H
#define JITCACHE_KEY_TOKEN_H

enum jc_token { JC_TOKEN_OTHER, JC_TOKEN_LITERAL, JC_TOKEN_NUMBER, JC_TOKEN_NAME };

/* The token starting at p (p < end): where it ends, its kind in *kind. */
const char *jc_token(const char *p, const char *end, enum jc_token *kind);

#endif
