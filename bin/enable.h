// SPDX-License-Identifier: MIT
/*
 * enable.h — `jitcache enable` and `jitcache disable`: one command for each
 * way users leave jitcache on, each undone by disable.
 *
 *   shell                  print the line for ~/.profile or ~/.bashrc, which
 *                          appends the library to LD_PRELOAD once (so that
 *                          eval "$(jitcache enable shell)" also turns it on in
 *                          the running shell); disable prints the line that
 *                          takes it out again and names the files that still
 *                          turn it on
 *   systemd UNIT [--user] [--root DIR] [--force]
 *                          the drop-in /etc/systemd/system/UNIT.d/jitcache.conf
 *                          (--user: ~/.config/systemd/user/UNIT.d/): LD_PRELOAD
 *                          (the unit's own, then the library), and a cache
 *                          directory systemd makes for the service's own user
 *                          (CacheDirectory=); checked with systemd-analyze
 *                          verify where it is installed.  Refused: a unit
 *                          systemd does not know (unless --force), and for a
 *                          system unit a library a user but root can rewrite
 *   jupyter [--name NAME] [--python PATH] [--prefix DIR]
 *                          a kernel spec, $JUPYTER_DATA_DIR/kernels/NAME (as
 *                          Jupyter finds it; --prefix: DIR/share/jupyter/...),
 *                          whose kernel runs with the library preloaded
 *
 * The library is $JITCACHE_LIB, an absolute path (bin/jitcache sets it to
 * the library `jitcache run` preloads).  Files are written whole (a
 * temporary file renamed into place); disable removes only what enable
 * wrote.  jc_enable_main(argc, argv) takes argv[0] = "enable" or "disable"
 * and returns the exit status: 0 done, 1 failed, 2 bad usage.
 */
#ifndef JITCACHE_BIN_ENABLE_H
#define JITCACHE_BIN_ENABLE_H

#include <stdio.h>

int jc_enable_main(int argc, char **argv);

/* The "enable" and the "disable" lines of `jitcache --help`. */
void jc_enable_usage(FILE *out);
void jc_disable_usage(FILE *out);

#endif
