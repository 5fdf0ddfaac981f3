// SPDX-License-Identifier: MIT
/* PoCL's cache off: a directory of its own for each program jitcache
 * serves, and for each program the application makes from such a
 * program's binary (cl_pocl.h, "directory names of their own").
 *
 * The name is the header's 41-byte directory field (cl_pocl_binary.c:
 * "poclbin\0", device id, version, kernel count, flags, root entry count,
 * then the name), where PoCL takes it from; never elsewhere, where the
 * same letters may be a kernel's or a symbol's name (kernel
 * k_UNCACHED_abcdef, issue 44). */
#include "shim/cl/cl_pocl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define DIR_AT (8 + 8 + 4 + 4 + 8 + 4) /* the header's directory name */
#define DIR_SIZE 41
#define TAG "_UNCACHED_"
#define TAG_LEN (sizeof TAG - 1)
#define NAME_LEN 6 /* mkdtemp's XXXXXX */
#define GIVEN_MAX 256

/* Where the six characters of the directory's own name begin in bin: its
 * offset, or 0 if the header names no _UNCACHED_ directory. */
static size_t uncached_name(const unsigned char *bin, size_t size)
{
	if (!bin || size < DIR_AT + DIR_SIZE || memcmp(bin, "poclbin", 8) != 0)
		return 0;
	const unsigned char *dir = bin + DIR_AT;
	const unsigned char *at = memmem(dir, DIR_SIZE, TAG, TAG_LEN);
	if (!at || (size_t)(at - dir) + TAG_LEN + NAME_LEN >= DIR_SIZE)
		return 0; /* the name must end inside the field, before its NUL */
	return (size_t)(at - bin) + TAG_LEN;
}

/* The names given to served programs in this process, the latest
 * GIVEN_MAX: a ring, under a lock. */
static struct {
	pthread_mutex_t lock;
	char names[GIVEN_MAX][NAME_LEN];
	size_t next, count;
} given = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void remember(const unsigned char *name)
{
	pthread_mutex_lock(&given.lock);
	memcpy(given.names[given.next], name, NAME_LEN);
	given.next = (given.next + 1) % GIVEN_MAX;
	if (given.count < GIVEN_MAX)
		given.count++;
	pthread_mutex_unlock(&given.lock);
}

static int was_given(const unsigned char *name)
{
	int found = 0;
	pthread_mutex_lock(&given.lock);
	for (size_t i = 0; i < given.count && !found; i++)
		found = memcmp(given.names[i], name, NAME_LEN) == 0;
	pthread_mutex_unlock(&given.lock);
	return found;
}

/* A copy of bin whose directory's six characters at `at` are new. */
static unsigned char *renamed(const unsigned char *bin, size_t size, size_t at)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char *copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, bin, size);
	unsigned char name[NAME_LEN];
	if (getrandom(name, sizeof name, GRND_NONBLOCK) != (ssize_t)sizeof name)
		for (size_t i = 0; i < sizeof name; i++) /* no entropy yet: unique enough */
			name[i] = (unsigned char)(getpid() * 31 + i * 7 + (size_t)clock());
	for (size_t i = 0; i < NAME_LEN; i++)
		copy[at + i] = (unsigned char)alnum[name[i] % (sizeof alnum - 1)];
	return copy;
}

unsigned char *jc_pocl_own_dir(const unsigned char *bin, size_t size)
{
	size_t at = uncached_name(bin, size);
	if (!at || jc_pocl_cache_on())
		return NULL;
	unsigned char *copy = renamed(bin, size, at);
	if (copy)
		remember(copy + at);
	return copy;
}

unsigned char *jc_pocl_app_binary(const unsigned char *bin, size_t size)
{
	size_t at = uncached_name(bin, size);
	if (!at || jc_pocl_cache_on() || !was_given(bin + at))
		return NULL;
	unsigned char *copy = renamed(bin, size, at);
	if (copy) /* a program made of its binary in turn gets one of its own */
		remember(copy + at);
	return copy;
}

void jc_pocl_served_dir(const char *dir)
{
	const char *name = strrchr(dir, '/');
	name = name ? name + 1 : dir;
	if (strlen(name) == TAG_LEN + NAME_LEN && strncmp(name, TAG, TAG_LEN) == 0)
		remember((const unsigned char *)name + TAG_LEN);
}
