/* client.c — the back-off and SIGPIPE guard the remotes' clients share
 * (client.h). */
#include "tiers/client.h"

#include "store/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

void jc_backoff_init(struct jc_backoff *b, const char *state_dir, const char *where,
		     double seconds)
{
	memset(b, 0, sizeof *b);
	b->seconds = seconds > 0 ? seconds : 0; /* also NaN */
	if (state_dir)
		snprintf(b->path, sizeof b->path, "%s/remote-%016llx.down", state_dir,
			 (unsigned long long)XXH3_64bits(where, strlen(where)));
}

void jc_backoff_start(struct jc_backoff *b)
{
	int64_t until = jc_wall_ns() + (int64_t)(b->seconds * 1e9);
	__atomic_store_n(&b->until, until, __ATOMIC_RELAXED);
	if (!b->path[0])
		return;
	int fd = jc_fs_open_file(AT_FDCWD, b->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	char text[32];
	int n = snprintf(text, sizeof text, "%lld\n", (long long)until);
	if (write(fd, text, (size_t)n) != n) {
		/* a short file is ignored by its readers */
	}
	close(fd);
}

int jc_backoff_active(struct jc_backoff *b)
{
	int64_t now = jc_wall_ns();
	if (now < __atomic_load_n(&b->until, __ATOMIC_RELAXED))
		return 1;
	if (!b->path[0])
		return 0;
	int fd = jc_fs_open_file(AT_FDCWD, b->path, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	char text[32] = "";
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	long long until = n > 0 ? strtoll(text, NULL, 10) : 0;
	if (until <= now || until > now + (int64_t)(b->seconds * 1e9) + 1000000000)
		return 0;
	__atomic_store_n(&b->until, (int64_t)until, __ATOMIC_RELAXED);
	return 1;
}

void jc_pipe_block(struct jc_pipe_guard *g)
{
	sigset_t pipe, pending;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &g->old);
	g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

void jc_pipe_unblock(struct jc_pipe_guard *g)
{
	sigset_t pipe, pending;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR) {
		}
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}
