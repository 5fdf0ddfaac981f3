// SPDX-License-Identifier: MIT
/* The libcurl ABI tiers/http.c uses, written out in tiers/curl_abi.h so
 * that building jitcache needs no libcurl headers, checked against
 * <curl/curl.h> itself: every constant (a _Static_assert each: a wrong one
 * fails the build of the tests) and the layout of the two structs.  Where
 * the header is not installed (libcurl4-openssl-dev), it says so and
 * checks nothing. */
#define JC_CURL_LISTS_ONLY
#include "tiers/curl_abi.h"
#include "tests/unit/check.h"

#if __has_include(<curl/curl.h>)
#define CURL_DISABLE_DEPRECATION /* CURLOPT_PROTOCOLS: http.c sets it (see there) */
#include <curl/curl.h>
#include <stddef.h>

#define SAME(name, value) _Static_assert((long long)(name) == (long long)(value), \
					 #name " is not " #value " in curl.h");
JC_CURL_OPTIONS(SAME)
JC_CURL_INFOS(SAME)
JC_CURL_CODES(SAME)
JC_CURL_MACROS(SAME)

#define ONE(name, value) +1
static const int constants = 0 JC_CURL_OPTIONS(ONE) JC_CURL_INFOS(ONE) JC_CURL_CODES(ONE)
	JC_CURL_MACROS(ONE);

/* The structs as curl_abi.h writes them, under other names. */
struct our_slist {
	JC_CURL_SLIST_MEMBERS
};
struct our_sockaddr {
	JC_CURL_SOCKADDR_MEMBERS
};
#define AT(a, b, m) (offsetof(struct a, m) == offsetof(struct b, m))
_Static_assert(sizeof(struct our_slist) == sizeof(struct curl_slist) &&
		       AT(our_slist, curl_slist, data) && AT(our_slist, curl_slist, next),
	       "struct curl_slist");
_Static_assert(sizeof(struct our_sockaddr) == sizeof(struct curl_sockaddr) &&
		       AT(our_sockaddr, curl_sockaddr, family) &&
		       AT(our_sockaddr, curl_sockaddr, socktype) &&
		       AT(our_sockaddr, curl_sockaddr, protocol) &&
		       AT(our_sockaddr, curl_sockaddr, addrlen) &&
		       AT(our_sockaddr, curl_sockaddr, addr),
	       "struct curl_sockaddr");

int main(void)
{
	CHECK(constants > 40, "%d constants and 2 structs of tiers/curl_abi.h are curl.h's "
	      "(libcurl %s; checked when this test was built)", constants, LIBCURL_VERSION);
	return check_summary();
}
#else
int main(void)
{
	printf("skip: no <curl/curl.h> (libcurl4-openssl-dev): tiers/curl_abi.h not checked\n");
	return check_summary();
}
#endif
