// SPDX-License-Identifier: MIT
/*
 * got.h — one library's calls of a C library function, routed through a
 * hook of the core's, in that library alone.
 *
 * A library calls another's function through a slot of its global offset
 * table that the dynamic loader filled at load (its PLT's, or the GOT's for
 * code built with -fno-plt).  jc_got_hook() finds the slots of `name` in
 * every loaded library whose file name contains `lib` and writes `hook`
 * into them: from then on that library's calls of `name` go to `hook`,
 * which calls `*real`, what the slot held (the C library's function, or
 * whatever the loader bound there: another preloaded library's, kept in
 * its place).  No other library's calls, nor the program's, change: unlike
 * an export of the preloaded library, a process that never asks pays
 * nothing (idle is free: no symbol of the C library is interposed by
 * jitcache's small preloaded library but the exec functions).
 *
 * A slot in the library's read-only part (RELRO: loaders of libraries
 * linked with -z now make the whole table read-only after loading) is made
 * writable for the one store, then read-only again.  The store is one
 * aligned pointer: a thread of the library calling `name` meanwhile calls
 * the old function or the hook, never anything else.  Once written, a slot
 * stays so for the life of the process (the core is never unloaded); a
 * second call for a library hooked already changes nothing.
 *
 *   static int (*real_access)(const char *, int);
 *   jc_got_hook("libpocl", "access", (void *)my_access, (void **)&real_access);
 *
 * Returns the number of slots now routed to `hook` (0: no such library,
 * no such slot, or an architecture other than x86-64 and AArch64).  Not
 * thread-safe against itself: call it under a lock or once.
 */
#ifndef JITCACHE_GOT_H
#define JITCACHE_GOT_H

int jc_got_hook(const char *lib, const char *name, void *hook, void **real);

#endif
