// SPDX-License-Identifier: MIT
/*
 * cl_pocl.h — PoCL's work-group code, kept with the entry it belongs to.
 *
 * PoCL compiles a program in two steps.  clBuildProgram makes its LLVM IR,
 * DIR/program.bc, where DIR is the program's directory under PoCL's cache
 * directory (its kernel cache on: named by a hash of the build; off: a
 * temporary _UNCACHED_XXXXXX, removed with the program).  Each kernel's
 * machine code, a "work-group function" for one local size (and a zero
 * global offset, a small grid), is compiled when the kernel is first
 * enqueued that way, into DIR/KERNEL/LX-LY-LZ[-goffs0][-smallgrid]/.
 * The program's binary (CL_PROGRAM_BINARIES, "poclbin" format version 9,
 * PoCL 3.x) is DIR packed: program.bc and each kernel's directory as it is
 * when the binary is first asked for.  Asked right after the build, as
 * jitcache asks to store it, that is a generic work-group function only,
 * which PoCL does not use where it has program.bc: every process served
 * the binary compiled its work-group functions again (ffmpeg's filters:
 * 3.1 s of CPU against 1.5 s with PoCL's own cache warm).
 *
 * So the programs jitcache stores or serves from PoCL binaries are
 * watched, and when the application is done with one (its last release,
 * or its last kernel's when the program went first; a rebuild; with
 * PoCL's cache on, where the directory stays, the process's exit, so that
 * commands still queued have compiled: atexit(), before PoCL's own
 * destructors, registered with the first watch) the
 * files PoCL has compiled into its kernels' directories since are added to
 * the entry, in a second store under the same key: the binary PoCL returns for
 * this program when it is asked after those runs (or, its cache on, asked
 * in a later process), which loads the same program and computes the same
 * results.  Only files the binary lacks are added (an entry grows by the
 * work-group functions programs use, bounded by PoCL's own largest binary,
 * 256 MiB); the DIR read must hold the same program.bc as the binary; the
 * new entry replaces the old whole or not at all (cache.h).  The second
 * store counts in no statistic and stays in the cache directory (not sent
 * to a remote tier; an entry served from a read-only layer stays as it
 * is).  With PoCL's cache off a program's directory goes with the
 * program, which PoCL frees after the commands still queued for its
 * kernels: the watch of a program so released is kept (the latest 64),
 * and each work-group function PoCL renames into its directory after
 * the release is added once PoCL has dlopen()ed it (its dlopen through
 * its own table too: a refresh in the rename would widen the time in
 * which freeing a program sharing the directory removes the file before
 * PoCL's dlopen), on PoCL's thread, one refresh at a time
 * (a command still queued at the release: pyopencl's scans; 12 compiles
 * in every warm pyopencl run served by jitcache alone before), without
 * its compile time (below).
 *
 *   jc_pocl_watch(program, &key, n, binaries, sizes);  // stored, or loaded from the entry
 *   jc_pocl_release(program);        // the application is done with it: refresh
 *
 * Binaries other than PoCL's version 9 are not watched.  Nothing here
 * fails the application: a refresh that cannot be made is not made.  All
 * functions are thread-safe; none calls the driver.
 */
#ifndef JITCACHE_CL_POCL_H
#define JITCACHE_CL_POCL_H

#include <stddef.h>

#include "shim/cl/cl_api.h"
#include "store/store.h"

#include <stdint.h>

/* Watch `program`, whose binaries are `binaries` (as stored under `key`,
 * or as given to clCreateProgramWithBinary).  A program watched already is
 * watched from now on with these. */
void jc_pocl_watch(cl_program program, const struct jc_key *key, cl_uint ndev,
		   const unsigned char *const *binaries, const size_t *sizes);
/* Watch `program` as the program of `binary` (as stored under `key`),
 * whose directory PoCL has not made: a pending build's, whose binary the
 * application may take (cl_program_map.h). */
void jc_pocl_watch_given(cl_program program, const struct jc_key *key,
			 const unsigned char *binary, size_t size);
/* If `program` is watched: refresh its entry now and stop watching it. */
void jc_pocl_release(cl_program program);
/* The application is done with `program`, whose kernels may still have
 * commands queued that PoCL compiles for: with PoCL's cache on (the
 * directory stays) it stays watched, refreshed at exit or when the handle
 * is watched again; with it off (the directory goes with the program), as
 * jc_pocl_release(). */
void jc_pocl_release_later(cl_program program);
/* The application let go of watched `program` while `kernel` (with its
 * `refs` references) still holds it; jc_pocl_kernel_release() counts the
 * kernel's releases: with the last kernel's, the program is done with
 * (jc_pocl_release_later()). */
void jc_pocl_kernel_held(cl_program program, cl_kernel kernel, cl_uint refs);
void jc_pocl_kernel_release(cl_kernel kernel);
/* A hit: the watch of `program` takes the times of the work-group
 * functions its entry's payload `p` holds (below), to credit each that
 * PoCL finds instead of compiling it. */
struct jc_cl_payload;
void jc_pocl_watch_times(cl_program program, const struct jc_cl_payload *p);
/* The work-group functions PoCL compiles on this thread from _begin() to
 * _end(), as jitcache takes a program's binaries to store them (a generic
 * one for each kernel), timed: "REL CPU WALL\n" lines (malloc'd; NULL:
 * none), which jc_pocl_add_times() adds to the payload's, to be credited
 * as those above when a program served from the entry has PoCL find
 * them (an application taking its binary).  _end() adds, handed over,
 * those PoCL compiled as the application took the binary of `program`
 * (watched as a pack: jc_pocl_taking()). */
void jc_pocl_time_begin(void);
char *jc_pocl_time_end(cl_program program);
/* p (version 3, with room for one more kernel record) with the lines
 * `timed` added to its times; *owned: the string to free once p is
 * encoded (NULL: nothing added). */
void jc_pocl_add_times(struct jc_cl_payload *p, const char *timed, char **owned);
/* The application was answered the binary of `program` (watched), a
 * pending build's (cl_program_map.h), without PoCL: the generic
 * work-group functions it carries, which PoCL compiles for a binary taken
 * from a build, are credited as found (above), once per program. */
void jc_pocl_binary_given(cl_program program);
/* Whether `program` is watched. */
int jc_pocl_watched(cl_program program);
/* Whether it is watched as a pack of its directory (below): 1 and (given
 * key) *key. */
int jc_pocl_packed(cl_program program, struct jc_key *key);
/* The application is asking for the binary of `program`, watched as a
 * pack (taking 1), or is done asking (0): the generic work-group functions
 * PoCL compiles meanwhile are timed apart, for the binary that will
 * replace the pack (jc_pocl_time_end() hands them over, as it does those
 * of jitcache's own take), not added to the entry's compile time. */
void jc_pocl_taking(cl_program program, int taking);
/* The application made a program of `to`, a copy of binary `from` that
 * names a directory of its own (jc_pocl_app_binary()): the watch of the
 * program whose directory `from` names, released or not, adds the
 * work-group code PoCL compiles into `to`'s directory too (the latest
 * such program's): the same program.bc, the same functions, as when PoCL
 * unpacked both into one directory. */
void jc_pocl_dir_copied(const unsigned char *from, const unsigned char *to, size_t size);

/* What PoCL's work-group compiles cost, counted in the entry (issue 46):
 * the entry's compile time is what a hit saves, and a hit on an entry
 * with PoCL's work-group code saves those compiles too, which PoCL makes
 * after the build, on one of its own threads.  PoCL asks access() for
 * DIR/KERNEL/LOCALSIZE/KERNEL.so before compiling it, on the thread that
 * compiles it, and rename()s the finished file there: from the first
 * build on PoCL, PoCL's own calls of both (libpocl's, through its global
 * offset table: shim/got.h; no other library's nor the program's, and none
 * in a process that never built a program on PoCL) pass through here,
 * untouched (arguments, result, errno).  That thread's CPU time and the
 * wall time between the two are added to the watch of the program whose
 * directory DIR is, and to its entry's compile times with the refresh that
 * adds the files, with the CPU time of the children the process waited
 * for meanwhile (the linker PoCL runs: ld, a child process), the sum
 * capped at the wall time.  A compile after the program's release with
 * PoCL's cache off is kept apart instead, as its function's own time in
 * the entry (a hit credits the entry's times each time, and a program of
 * the same key built again in one run may never queue that command): a
 * program served from the entry credits it when PoCL finds that
 * function's file there instead of compiling it (its access() succeeds),
 * the first time PoCL looks for it in that program, once per program,
 * PoCL's cache off (with it on, PoCL's own cache may have held it).  Not
 * counted: a compile whose file another process put first, the
 * work-group code an entry took from PoCL's cache as it found it, nor a
 * function PoCL looked for and compiled in the program: what is recorded
 * is measured, and at most what was saved. */

/* ---- the binary format and the program directory (cl_pocl_binary.c) ---- */

#define JC_POCL_MAX_BINARY ((size_t)256 << 20) /* PoCL's own MAX_BINARY_SIZE */

struct jc_pocl_binary {
	char dir[41];                   /* DIR's name under PoCL's cache directory */
	const unsigned char *program_bc; /* the root file /program.bc, in the binary */
	size_t program_bc_size;
	size_t files;                   /* files its kernels' directories carry */
};

/* 0 and *out (pointing into bin) if bin is a well-formed PoCL binary of
 * format version 9; -1 otherwise. */
int jc_pocl_parse(const void *bin, size_t size, struct jc_pocl_binary *out);

/* Files in the subdirectories of the program directory `dir` (where PoCL
 * writes the kernels' directories), its own temporary files left out. */
size_t jc_pocl_dir_files(const char *dir);

/* bin with the files of its kernels' directories under `dir` that it does
 * not carry added, as PoCL packs them: 1 and *out (malloc'd); 0 if there
 * are none; -1 if bin is not a PoCL binary, dir does not hold its
 * program.bc, or the result would pass JC_POCL_MAX_BINARY. */
int jc_pocl_merge(const void *bin, size_t size, const char *dir, void **out, size_t *out_size);

/* ---- PoCL's own cache directory as the entry (cl_pocl_dir.c) ----
 *
 * With PoCL's kernel cache on, a build leaves its program in
 * TOP/AB/CDE.../ (program.bc; each kernel's work-group functions as they
 * are compiled) and touches its last_accessed file.  Taking the program's
 * binary instead makes PoCL compile a generic work-group function for
 * every kernel first, which the program never runs (pyopencl: 2.1x the
 * CPU of a run without jitcache).  So there a miss stores a pack of that
 * directory, made of PoCL's files as they are (cheap), and a hit puts the
 * files PoCL's cache lacks back and lets PoCL build the application's own
 * program: PoCL finds its directory and loads it, as with its cache warm.
 * PoCL chooses the directory by its own hash of the build: a pack put
 * back under a name PoCL does not compute for the build is never read
 * for it (the hit is then refused), so what the program runs is always
 * what PoCL built for it.  A pack of a temporary directory (made with
 * PoCL's cache off, below) is put in the directory PoCL's hash names as
 * PoCL makes it in the build instead, as with PoCL's cache off; so is
 * every pack where PoCL's cache is off.  Packs are this module's format,
 * not PoCL's. */

/* PoCL's cache directory for this process (POCL_CACHE_DIR, ...): 0, -1. */
int jc_pocl_topdir(char *out, size_t size);
/* Whether PoCL's kernel cache is on in this process, as PoCL reads it. */
int jc_pocl_cache_on(void);
/* Whether bin is a pack. */
int jc_pocl_is_pack(const void *bin, size_t size);
/* The times a build starts and ends, as file times go: a touch made before
 * the start (which waits a few ms for the clock's tick) is earlier.  Only
 * where PoCL's hooks could not be put on (jc_pocl_hook() 0): with them, a
 * build starts with jc_pocl_named_starts() and no wait (on a warm PoCL
 * cache the wait was most of the wall time jitcache added to a hit). */
int64_t jc_pocl_build_starts(void);
int64_t jc_pocl_build_ended(void);
/* PoCL's own access() (found: whether it found the file) or rename()
 * (found 0) of `path` on this thread: a build's DIR/program.bc names its
 * directory (remembered until the next jc_pocl_named_starts() or
 * jc_pocl_build_starts() on this thread; two directories, none). */
void jc_pocl_note_path(const char *path, int found);
/* Whether PoCL's last access() of DIR/program.bc on this thread since the
 * build began found it, DIR being dir (absolute, resolved) and the only
 * directory named: PoCL then loads that program.bc (PoCL 3.1,
 * pocl_llvm_build_program()), as it does from its cache. */
int jc_pocl_named_found(const char *dir);
/* The name ("AB/CDE...") of the one program directory whose last_accessed
 * PoCL touched between t0 and t1 (jc_pocl_build_starts() and _ended()) and
 * whose program.bc names every kernel of program (malloc'd); NULL if none
 * or more than one (another build of the same kernels at the same time).
 * The directory PoCL named on this thread in the build (its access() or
 * rename() of DIR/program.bc, seen by the hooks: jc_pocl_note_path()) is
 * taken if it passes the same tests, without reading every directory of
 * PoCL's cache; else they are read.  t0 0 (the build started with
 * jc_pocl_named_starts(), the hooks on): that directory, whenever it was
 * touched, or none. */
char *jc_pocl_find_dir(cl_program program, int64_t t0, int64_t t1);
/* The mtime of dir/last_accessed (jc_wall_ns()), or -1. */
int64_t jc_pocl_touched_ns(const char *dir);
/* The directory `name` packed: 0 and *out (malloc'd), or -1 (no program.bc
 * there, over JC_POCL_MAX_BINARY). */
int jc_pocl_pack(const char *name, void **out, size_t *size);
/* As jc_pocl_parse() for a pack: its directory's name, program.bc, and the
 * files of its kernels' directories. */
int jc_pocl_pack_parse(const void *bin, size_t size, struct jc_pocl_binary *out);
/* The files of the pack that PoCL's cache directory lacks written there
 * (each whole, by link: never one of PoCL's replaced; program.bc last):
 * the directory's absolute path (malloc'd), or NULL. */
char *jc_pocl_unpack(const void *bin, size_t size);
/* As jc_pocl_merge() for a pack: dir packed again, if it holds the same
 * program.bc and more files. */
int jc_pocl_pack_merge(const void *bin, size_t size, const char *dir, void **out,
		       size_t *out_size);

/* ---- PoCL's cache off: the build's own directory as the entry ----
 *
 * With PoCL's kernel cache off (POCL_KERNEL_CACHE=0) a build writes its
 * program.bc to a temporary directory, TOP/_UNCACHED_XXXXXX, that PoCL
 * makes for it (mkdtemp()) and removes with the program, and PoCL then
 * asks access() whether that directory holds a program.bc already: if it
 * does, PoCL loads it instead of compiling, as from its cache (PoCL 3.1,
 * pocl_llvm_build_program()).  Taking the binary instead, as a miss did
 * before, had PoCL compile a generic work-group function for each kernel
 * (pyopencl's first run: 2.36x the CPU of one without jitcache).  So a
 * miss packs that directory as with PoCL's cache on (named by PoCL's own
 * access() of its program.bc on the building thread), the work-group
 * functions are added as PoCL compiles them (the watch of cl_pocl.c), and
 * a hit lets PoCL build the application's program with the pack put into
 * the directory PoCL made for that very build, when PoCL's access() of
 * its program.bc comes on the building thread: each file written whole,
 * program.bc last; a directory that is not a fresh temporary one of
 * PoCL's cache directory, or holds a program.bc, is left alone.  The
 * build then is PoCL's own, from its preprocessing on: a hit counted only
 * if PoCL looked and the build succeeded, else it is compiled and stored
 * again.  An application that takes the binary of such a program pays for
 * the generic functions itself (tinygrad, pyopencl's own cache): that
 * binary then replaces the pack (jc_cl_binaries_taken()), so that its
 * next run is served the binary as before, and takes it at no cost. */

/* Hook PoCL's access(), rename() and dlopen() (once; above): whether its
 * access() and rename() pass through the hooks. */
int jc_pocl_hook(void);
/* A build is to begin on this thread (the hooks on: jc_pocl_hook()): the
 * directory PoCL named before forgotten. */
void jc_pocl_named_starts(void);
/* The name ("_UNCACHED_XXXXXX", malloc'd) of the temporary directory PoCL
 * named in the build on this thread since jc_pocl_named_starts(), if
 * its program.bc names every kernel of program; NULL otherwise. */
char *jc_pocl_find_uncached(cl_program program);
/* The build about to begin on this thread (the hooks on) is to find the
 * files of pack bin (which must outlive it) in its directory; _end():
 * the name of the directory they were put in under PoCL's cache
 * directory (malloc'd), or NULL if none was.  With PoCL's cache on the
 * directory is the one PoCL's hash of the build names (a pack made with
 * its cache off names a temporary one), and one that holds its
 * program.bc already counts as put (PoCL loads its own). */
void jc_pocl_fill_begin(const void *bin, size_t size);
char *jc_pocl_fill_end(void);
/* PoCL's own access() of path, from the hook: puts the pack in if path is
 * the program.bc of a build that is to find it. */
void jc_pocl_fill_at(const char *path);
/* Pack bin naming directory `name` instead: 0 and *out (malloc'd), -1. */
int jc_pocl_pack_renamed(const void *bin, size_t size, const char *name, void **out,
			 size_t *out_size);

/* ---- directory names of their own (cl_pocl_name.c) ----
 *
 * PoCL with its kernel cache off (POCL_KERNEL_CACHE=0) writes each
 * program's files to a temporary directory, TOP/_UNCACHED_XXXXXX, removed
 * when the program is freed, and its binary names that directory: every
 * program created from the binary unpacks into the same one, so freeing
 * one deletes the files of the others, and a kernel creation, build or
 * work-group compile of another aborts the process ("Can't get stat() on
 * .../_UNCACHED_...", 8 threads hitting one entry; "Final linking of
 * kernel simple failed", pyopencl's test_can_build_and_run_binary).  So
 * each program served from an entry gets a directory name of its own, as
 * a build from source would (the six characters after "_UNCACHED_" are
 * replaced in a copy of the binary, in its header's name alone), and so
 * does each program the application creates from a binary naming a
 * directory jitcache gave in this process (the latest 256 names): a
 * program served and one made of its binary never share one, where PoCL
 * would make the second unpack into the first one's, which releasing the
 * first removes under the second's compile (PoCL's own race without
 * jitcache: the `--twin` of tests/helpers/cl_build.c).  Names PoCL gave
 * are left as they are: what PoCL does with its own binaries is PoCL's.
 * With PoCL's cache on in this process (POCL_KERNEL_CACHE unset or 1: an
 * entry made with it off, by a CI job or `jitcache warm`), PoCL unpacks
 * the binary into TOP/_UNCACHED_XXXXXX and keeps it there, with the
 * work-group functions it compiles for it: a name of its own for each hit
 * grew that directory by one on every hit and compiled them again every
 * time.  The stored name is kept then, so every hit finds its directory
 * as the last one left it. */

/* A copy of bin (malloc'd) naming a directory of its own, remembered as
 * given; NULL: bin is used as it is (PoCL's cache on, or its header names
 * no _UNCACHED_ directory). */
unsigned char *jc_pocl_own_dir(const unsigned char *bin, size_t size);
/* For the application's clCreateProgramWithBinary: as jc_pocl_own_dir(),
 * only if bin names a directory jitcache gave; NULL: bin as it is. */
unsigned char *jc_pocl_app_binary(const unsigned char *bin, size_t size);
/* A program served from a pack put in directory `dir` (PoCL's cache off:
 * jc_pocl_fill_end()) is one jitcache served: its directory's name is
 * remembered as given. */
void jc_pocl_served_dir(const char *dir);

#endif
