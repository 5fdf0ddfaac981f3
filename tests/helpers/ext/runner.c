// SPDX-License-Identifier: MIT
/*
 * runner — loads a test client built as a shared object, the way Python
 * loads an extension module (dlopen, RTLD_LOCAL), and calls its
 * jc_ext_main(argc, argv).  The runner itself links no GPU library: the
 * client's loader is then only in the client's local scope, under whatever
 * name the client links (tests/integration/loader_renamed.sh).
 *
 *   runner CLIENT.so [ARGS...]
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: runner CLIENT.so [ARGS...]\n");
		return 2;
	}
	void *client = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!client) {
		fprintf(stderr, "runner: %s\n", dlerror());
		return 2;
	}
	int (*client_main)(int, char **);
	*(void **)&client_main = dlsym(client, "jc_ext_main");
	if (!client_main) {
		fprintf(stderr, "runner: no jc_ext_main in %s\n", argv[1]);
		return 2;
	}
	return client_main(argc - 1, argv + 1);
}
