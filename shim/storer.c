/* Stores left to a helper process (see storer.h). */
#include "shim/storer.h"

#include "cache/spool.h"
#include "shim/shim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int state;              /* 0: not started; 1: running; -1: stores stay here */
static int wake = -1;          /* this end of the socket (O_CLOEXEC, nonblocking) */
static struct jc_spool spool;  /* the helper's spool directory (cache/spool.h) */
static char library[PATH_MAX]; /* the OpenCL loader the helper builds with */

/* This process's environment with the helper's settings in place of any
 * the user had: a NULL-terminated array, the strings made here in own[]. */
static char **helper_environment(const char *self, char *own[4])
{
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0;
	while (environ && environ[n])
		n++;
	char **env = calloc(n + 5, sizeof *env);
	if (!env)
		return NULL;
	if (asprintf(&own[0], "LD_PRELOAD=%s%s%s", old && *old ? old : "", old && *old ? ":" : "",
		     self) < 0)
		own[0] = NULL;
	if (asprintf(&own[1], "JITCACHE_REPLAY_OPENCL=%s", library) < 0)
		own[1] = NULL;
	own[2] = strdup(JC_STORER_HELPER_ENV "=1");
	own[3] = strdup("JITCACHE_BACKGROUND_STORE=0");
	if (!own[0] || !own[1] || !own[2] || !own[3]) {
		free(env);
		return NULL;
	}
	static const char *const replaced[] = { "LD_PRELOAD=", "JITCACHE_REPLAY_OPENCL=",
						JC_STORER_HELPER_ENV "=",
						"JITCACHE_BACKGROUND_STORE=" };
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int skip = 0;
		for (size_t r = 0; r < 4; r++)
			skip |= strncmp(environ[i], replaced[r], strlen(replaced[r])) == 0;
		if (!skip)
			env[k++] = environ[i];
	}
	for (size_t r = 0; r < 4; r++)
		env[k++] = own[r];
	env[k] = NULL;
	return env;
}

/* Start the helper: 0, or -1 after one line saying why not. */
static int start(void)
{
	char helper[PATH_MAX], self[PATH_MAX];
	const char *file = jc_library_file_of((const void *)jc_storer_submit);
	if (jc_spool_helper(file, self, helper) != 0) {
		jc_log(JC_LOG_INFO, "no jitcache-replay found beside %s (set JITCACHE_REPLAY); "
		       "OpenCL binaries are taken in the program", file ? file : "libjitcache");
		return -1;
	}
	if (jc_spool_make(&spool) != 0) {
		jc_log(JC_LOG_INFO, "cannot make a spool directory %s (%s); OpenCL binaries are "
		       "taken in the program", spool.dir, strerror(errno));
		return -1;
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		jc_spool_remove(&spool);
		return -1;
	}
	char *own[4] = { 0 };
	char **env = helper_environment(self, own);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	/* Nothing of the program's but the socket: an inherited descriptor
	 * (its stderr a pipe someone reads to its end, say) would keep that
	 * open for as long as the helper runs. */
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	/* Nor the calling thread's blocked signals or ignored ones: Ctrl-C
	 * and SIGTERM end the helper as they end any program. */
	posix_spawnattr_t attr;
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	char spool_arg[] = "--spool";
	char *argv[] = { helper, spool_arg, spool.dir, NULL };
	pid_t pid = -1;
	int err = env ? posix_spawn(&pid, helper, &fa, &attr, argv, env) : ENOMEM;
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	for (int i = 0; i < 4; i++)
		free(own[i]);
	close(sv[1]);
	if (err != 0) {
		jc_log(JC_LOG_INFO, "cannot start %s (%s); OpenCL binaries are taken in the "
		       "program", helper, strerror(err));
		close(sv[0]);
		jc_spool_remove(&spool);
		return -1;
	}
	/* Its first stage only starts the helper proper and exits, so that the
	 * program is never left with a child of jitcache's to reap. */
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	wake = sv[0];
	jc_log(JC_LOG_DEBUG, "a helper (%s) takes OpenCL binaries off the program's path, "
	       "building with %s, spool %s", helper, library, spool.dir);
	return 0;
}

/* Spool the recipe and wake the helper: 0; -1 if it could not be written;
 * -2 if the helper is gone. */
static int spool_recipe(const void *recipe, size_t size)
{
	int rc = jc_spool_put(&spool, recipe, size);
	if (rc != 0)
		return rc;
	/* A full socket already holds a wake-up: EAGAIN is fine. */
	if (send(wake, "r", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EAGAIN &&
	    errno != EWOULDBLOCK) {
		jc_spool_unput(&spool); /* nobody would build it */
		return -2;
	}
	return 0;
}

/* A fork() while another thread holds mu must not leave the child's copy
 * locked forever. */
static void before_fork(void)
{
	pthread_mutex_lock(&mu);
}

static void after_fork(void)
{
	pthread_mutex_unlock(&mu);
}

static void watch_forks(void)
{
	pthread_atfork(before_fork, after_fork, after_fork);
}

int jc_storer_submit(const void *recipe, size_t size, const char *opencl_library)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (!opencl_library || strlen(opencl_library) >= sizeof library)
		return -1;
	pthread_once(&once, watch_forks);
	pthread_mutex_lock(&mu);
	if (state == 0) {
		snprintf(library, sizeof library, "%s", opencl_library);
		state = start() == 0 ? 1 : -1;
	}
	int rc = -1;
	if (state == 1 && strcmp(library, opencl_library) == 0) {
		rc = spool_recipe(recipe, size);
		if (rc == -2) { /* it ended, idle (or died): one more */
			close(wake);
			wake = -1;
			state = start() == 0 ? 1 : -1;
			rc = state == 1 ? spool_recipe(recipe, size) : -1;
		}
		if (rc == -2) {
			jc_log(JC_LOG_WARN, "the helper storing OpenCL binaries ended at once; they "
			       "are taken in the program from now on");
			state = -1;
		}
	}
	pthread_mutex_unlock(&mu);
	return rc == 0 ? 0 : -1;
}
