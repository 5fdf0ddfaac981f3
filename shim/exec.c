// SPDX-License-Identifier: MIT
/*
 * The exec door.  A program that compiles and then replaces itself with
 * execve() never runs its exit handlers: the remote writes it queued would
 * vanish with its writer thread, without a line or a count.  So every exec
 * function is interposed, as gcov's and LLVM's profile runtimes do to save
 * their counters (__gcov_execve): the queued writes get exit_wait, those
 * left are dropped, counted and said (jc_remote_before_exec, remote.h), and
 * the real function is called with the program's own arguments.  That is
 * the core's business (preload.h): a process that never loaded it (nearly
 * every process of a user who leaves jitcache on) passes straight through.
 *
 * glibc's execv, execvp, execl... call its execve internally, not through
 * the PLT, so each is interposed on its own.  A process that never wrote to
 * a remote (nearly every process under `jitcache run`: shells, tools) pays
 * one getpid() and a load; a vfork()ed child takes no lock.  If a real
 * function cannot be found the call fails with ENOSYS, as a missing
 * function would; nothing else changes errno or the arguments.
 */
#include "shim/preload.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

/* The next definition of name (libc's), looked up once. */
static void *real(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!fn) {
		fn = jc_real_dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	if (!fn)
		errno = ENOSYS;
	return fn;
}

/* The core's hook (tiers/remote.h's jc_remote_before_exec), if it is loaded. */
static void before_exec(void)
{
	const struct jc_core *core = jc_preload_core_if_loaded();
	if (core)
		core->before_exec();
}

#define REAL(type, name)                                                  \
	static void *slot_##name;                                         \
	type real_##name = (type)real(&slot_##name, #name);               \
	if (!real_##name)                                                 \
		return -1

JC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve_fn, execve);
	before_exec();
	return real_execve(path, argv, envp);
}

JC_EXPORT int execv(const char *path, char *const argv[])
{
	REAL(execv_fn, execv);
	before_exec();
	return real_execv(path, argv);
}

JC_EXPORT int execvp(const char *file, char *const argv[])
{
	REAL(execv_fn, execvp);
	before_exec();
	return real_execvp(file, argv);
}

JC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execve_fn, execvpe);
	before_exec();
	return real_execvpe(file, argv, envp);
}

JC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve_fn, fexecve);
	before_exec();
	return real_fexecve(fd, argv, envp);
}

JC_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	REAL(execveat_fn, execveat);
	before_exec();
	return real_execveat(dirfd, path, argv, envp, flags);
}

/* The execl family: the arguments gathered into an array on the stack (as
 * glibc does: no malloc, which a vfork()ed child must not call), for the
 * matching v function. */
#define GATHER(arg0, ap, argv)                                            \
	size_t n_ = 1;                                                    \
	va_start(ap, arg0);                                               \
	while (va_arg(ap, const char *))                                  \
		n_++;                                                     \
	va_end(ap);                                                       \
	char **argv = __builtin_alloca((n_ + 1) * sizeof *argv);          \
	argv[0] = (char *)(uintptr_t)arg0;                                \
	va_start(ap, arg0);                                               \
	for (size_t i_ = 1; i_ <= n_; i_++)                               \
		argv[i_] = va_arg(ap, char *);

JC_EXPORT int execl(const char *path, const char *arg, ...)
{
	REAL(execv_fn, execv);
	va_list ap;
	GATHER(arg, ap, argv)
	va_end(ap);
	before_exec();
	return real_execv(path, argv);
}

JC_EXPORT int execlp(const char *file, const char *arg, ...)
{
	REAL(execv_fn, execvp);
	va_list ap;
	GATHER(arg, ap, argv)
	va_end(ap);
	before_exec();
	return real_execvp(file, argv);
}

JC_EXPORT int execle(const char *path, const char *arg, ...)
{
	REAL(execve_fn, execve);
	va_list ap;
	GATHER(arg, ap, argv)
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	before_exec();
	return real_execve(path, argv, envp);
}
