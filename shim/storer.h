/*
 * storer.h — stores taken off the program's critical path.
 *
 * Some drivers make the binaries of a build cost a compile of their own:
 * PoCL, asked for CL_PROGRAM_BINARY_SIZES, compiles a work-group function
 * for every kernel of the program (several times the build itself), under
 * its process-wide compiler lock, so no thread of the program could do it
 * meanwhile.  For those builds the shim hands the request's recipe
 * (key/recipe.h) to a helper process instead: `jitcache-replay --spool`,
 * started once per process with this process's environment and libjitcache
 * preloaded, so that it computes the same keys.  At the lowest CPU priority
 * it builds each recipe again on the same device through the same OpenCL
 * loader, and its own shim stores the result as it stores any miss: what is
 * stored is always what the driver compiled under that key.  The helper
 * outlives the program: it ends once the program has ended and nothing is
 * left to build, so an entry appears shortly after the build, not at once.
 * It also ends after 30 s with nothing to do (its memory is not held for a
 * long program's life), and the program starts another when it needs one.
 *
 *   if (jc_storer_submit(recipe, size, opencl_library) == 0) ...handed over...
 *   else ...store in the program, as before...
 *
 * Nothing is shared but files: each recipe is written whole into a private
 * spool directory (cache/spool.h: mkdtemp in $TMPDIR, or /tmp; the helper
 * program is found there too), and a byte on a socket
 * wakes the helper; the socket's end tells it the program is gone.  The
 * helper holds no other descriptor of the program's (its stdout and stderr
 * are /dev/null), so nothing the program opened stays open for it.  Where
 * the helper cannot be found or started, or ends as soon as it starts, that
 * is said once and every later store is made in the program (-1).  A child of fork() shares
 * its parent's helper.  The helper counts neither hits nor misses (the
 * program counted its request), only its stores.
 */
#ifndef JITCACHE_SHIM_STORER_H
#define JITCACHE_SHIM_STORER_H

#include <stddef.h>

/* The environment variable that marks the helper's own process. */
#define JC_STORER_HELPER_ENV "JITCACHE_STORE_HELPER"

/* Hand recipe (size bytes) to the helper, which builds it with the OpenCL
 * loader at opencl_library (the file the program's calls go to).  0 if
 * handed over; -1: store it now. */
int jc_storer_submit(const void *recipe, size_t size, const char *opencl_library);

#endif
