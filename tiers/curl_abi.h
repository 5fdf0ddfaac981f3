// SPDX-License-Identifier: MIT
/*
 * curl_abi.h — the part of libcurl's ABI the HTTP(S) and S3 tiers use
 * (tiers/http.c), written out here so that building jitcache needs no
 * libcurl headers: libcurl is loaded with dlopen at the first request, and
 * the library has no DT_NEEDED on it.  That ABI is stable since
 * libcurl.so.4 (2006); the values are curl.h's (7.88).
 *
 * Each value is listed once, in the X-lists below, and checked against
 * <curl/curl.h> itself by tests/unit/test_curl_abi.c (a _Static_assert each,
 * and the two structs' layouts) wherever that header is installed
 * (libcurl4-openssl-dev: tests/install-deps.sh's check group).  A constant
 * http.c needs anew is one line of a list (and, for a macro, its #define).
 *
 * With JC_CURL_LISTS_ONLY defined (the check, which includes curl.h too),
 * only the lists are defined.
 */
#ifndef JITCACHE_CURL_ABI_H
#define JITCACHE_CURL_ABI_H

#include <sys/socket.h>

/* enum CURLoption */
#define JC_CURL_OPTIONS(X)                                                                     \
	X(CURLOPT_WRITEDATA, 10001) X(CURLOPT_URL, 10002) X(CURLOPT_USERPWD, 10005)              \
	X(CURLOPT_READDATA, 10009) X(CURLOPT_ERRORBUFFER, 10010)                                \
	X(CURLOPT_WRITEFUNCTION, 20011) X(CURLOPT_READFUNCTION, 20012)                          \
	X(CURLOPT_USERAGENT, 10018) X(CURLOPT_HTTPHEADER, 10023) X(CURLOPT_NOBODY, 44)          \
	X(CURLOPT_UPLOAD, 46) X(CURLOPT_FOLLOWLOCATION, 52) X(CURLOPT_SSL_VERIFYPEER, 64)       \
	X(CURLOPT_CAINFO, 10065) X(CURLOPT_MAXCONNECTS, 71) X(CURLOPT_SSL_VERIFYHOST, 81)       \
	X(CURLOPT_NOSIGNAL, 99) X(CURLOPT_HTTPAUTH, 107) X(CURLOPT_TIMEOUT_MS, 155)             \
	X(CURLOPT_CONNECTTIMEOUT_MS, 156) X(CURLOPT_OPENSOCKETFUNCTION, 20163)                  \
	X(CURLOPT_OPENSOCKETDATA, 10164) X(CURLOPT_PROTOCOLS, 181)                              \
	X(CURLOPT_REDIR_PROTOCOLS, 182) X(CURLOPT_CLOSESOCKETFUNCTION, 20208)                   \
	X(CURLOPT_CLOSESOCKETDATA, 10209) X(CURLOPT_INFILESIZE_LARGE, 30115)                   \
	X(CURLOPT_HEADERDATA, 10029) X(CURLOPT_CUSTOMREQUEST, 10036)                            \
	X(CURLOPT_HEADERFUNCTION, 20079) X(CURLOPT_MAXREDIRS, 68)

/* enum CURLINFO */
#define JC_CURL_INFOS(X)                                                                       \
	X(CURLINFO_RESPONSE_CODE, 0x200002) X(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, 0x60000f)

/* enum CURLcode */
#define JC_CURL_CODES(X)                                                                       \
	X(CURLE_OK, 0) X(CURLE_UNSUPPORTED_PROTOCOL, 1) X(CURLE_COULDNT_RESOLVE_HOST, 6)         \
	X(CURLE_COULDNT_CONNECT, 7) X(CURLE_WEIRD_SERVER_REPLY, 8) X(CURLE_WRITE_ERROR, 23)     \
	X(CURLE_OPERATION_TIMEDOUT, 28) X(CURLE_SSL_CONNECT_ERROR, 35)                          \
	X(CURLE_GOT_NOTHING, 52) X(CURLE_SEND_ERROR, 55) X(CURLE_RECV_ERROR, 56)                \
	X(CURLE_PEER_FAILED_VERIFICATION, 60) X(CURLE_SSL_CACERT_BADFILE, 77)

/* curl.h's macros: a #define each below, with these values */
#define JC_CURL_MACROS(X)                                                                      \
	X(CURL_GLOBAL_DEFAULT, 3L) X(CURLPROTO_HTTP, 1L) X(CURLPROTO_HTTPS, 2L)                  \
	X(CURLAUTH_BASIC, 1L) X(CURL_ERROR_SIZE, 256) X(CURL_READFUNC_ABORT, 0x10000000)

/* The members of the structs passed to and from libcurl. */
#define JC_CURL_SLIST_MEMBERS                                                                  \
	char *data;                                                                            \
	struct curl_slist *next;
#define JC_CURL_SOCKADDR_MEMBERS /* what the open-socket callback is given */                \
	int family, socktype, protocol;                                                        \
	unsigned int addrlen;                                                                  \
	struct sockaddr addr;

#ifndef JC_CURL_LISTS_ONLY

#define JC_CURL_ENUM(name, value) name = value,
enum { JC_CURL_OPTIONS(JC_CURL_ENUM) };
enum { JC_CURL_INFOS(JC_CURL_ENUM) };
enum { JC_CURL_CODES(JC_CURL_ENUM) };
#undef JC_CURL_ENUM

/* Macros, as curl.h has them: the protocol and auth bits are passed as
 * long through curl_easy_setopt's varargs, CURL_ERROR_SIZE sizes an array. */
#define CURL_GLOBAL_DEFAULT 3L
#define CURLPROTO_HTTP 1L
#define CURLPROTO_HTTPS 2L
#define CURLAUTH_BASIC 1L
#define CURL_ERROR_SIZE 256
#define CURL_READFUNC_ABORT 0x10000000
#define JC_CURL_SAME(name, value) _Static_assert(name == value, #name " as listed");
JC_CURL_MACROS(JC_CURL_SAME)
#undef JC_CURL_SAME

struct curl_slist {
	JC_CURL_SLIST_MEMBERS
};
struct curl_sockaddr {
	JC_CURL_SOCKADDR_MEMBERS
};

#endif
#endif
