// SPDX-License-Identifier: MIT
/* Unit tests of the OCI registry client (tiers/registry.h) that need its
 * insides: a child fork()ed while another thread holds a registry's token
 * lock (a request reading or setting the bearer token) makes its own
 * requests, rather than waiting for ever for a holder it does not have.
 * (Built from registry.c itself, to hold that lock as a request does.) */
#include "tiers/registry.c"
#include "config/remote_url.h"
#include "tests/unit/check.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int held[2]; /* the holder says, through a pipe, that it holds mu */

/* A request of another thread, in the middle of its token's update. */
static void *holder(void *arg)
{
	struct jc_registry *g = arg;
	pthread_mutex_lock(&g->mu);
	if (write(held[1], "h", 1) != 1)
		abort();
	usleep(1000 * 1000); /* a fork() now finds mu held */
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int main(void)
{
	struct jc_remote_spec sp = { .kind = JC_REMOTE_OCI };
	const char *why = NULL;
	CHECK(jc_remote_url_oci("oci://127.0.0.1:1/test/packs", &sp.at.registry, &why) == 0,
	      "an oci:// URL on a port nobody listens on");
	struct jc_http_options o = { .spec = &sp, .connect_timeout = 2, .timeout = 2,
				     .backoff = 0, .limit = 1 << 20 };
	struct jc_registry *g = jc_registry_open(&o, NULL);
	CHECK(g != NULL, "the registry client opened");
	if (!g || pipe(held) != 0)
		return check_summary();

	pthread_t t;
	char c;
	pthread_create(&t, NULL, holder, g);
	pthread_detach(t); /* (a child's copy of a joinable one: a "leak" to TSan) */
	CHECK(read(held[0], &c, 1) == 1, "another thread holds the token lock");
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t delta[JC_NCOUNTERS] = { 0 };
		struct jc_http_reply r;
		alarm(10); /* waiting for the lock for ever: killed */
		int code = jc_registry_manifest(g, "latest", &r, delta);
		free(r.body);
		_exit(code == -1 ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a child forked while another thread held the token lock made its request "
	      "(no registry there: no answer) rather than wait for ever (status %d%s)",
	      status, WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? ", killed stuck" : "");
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_reply r;
	CHECK(jc_registry_manifest(g, "latest", &r, delta) == -1,
	      "the parent's own requests go on after the fork");
	free(r.body);
	jc_registry_close(g);
	return check_summary();
}
