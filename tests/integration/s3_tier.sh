#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Ceph's radosgw in the test bed (make testbed-s3)
# The S3 tier's client (tiers/http.h, Signature V4 in tiers/sigv4.c) against
# a real S3 server: Ceph's radosgw (20.x, its SQLite backend) from the test
# bed (make testbed-s3), started here on 127.0.0.1 and reached through
# AWS_ENDPOINT_URL (path-style).  Credentials from the AWS variables and
# from ~/.aws/credentials profiles; wrong ones, a missing bucket and a server
# gone cost one line and -1.
. "$(dirname "$0")/../lib.sh"
TOOL=$B/tests/jc_http_tool
if [ ! -x "$TOOL" ]; then
	check "jc_http_tool built (make tests)" false
	finish; exit $?
fi
if ! start_radosgw "$T/rgw" 2>"$T/rgw.err"; then
	cat "$T/rgw.err"
	check "radosgw started from the test bed (make testbed-s3)" false
	finish; exit $?
fi
check "radosgw started" test -n "$AWS_ENDPOINT_URL"
check "a bucket made (signed by jc_http_tool)" s3_make_bucket jitcache
mkdir -p "$T/state"

tool() {
	local name=$1; shift
	timeout 30 "$TOOL" -d "$T/state" "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
}
has() { grep -qE -- "$2" "$T/$1.out"; }
said() { [ "$(grep -c '^jitcache: ' "$T/$1.out")" = "${2:-1}" ]; }
ended() { [ "$(cat "$T/$1.rc")" != 124 ]; }

tool put s3://jitcache/team/ci put a 5000
check "put: radosgw takes the signed PUT (x-amz-content-sha256 of the body)" has put '^put 0$'
check "put counts a store and its bytes" has put 'errors=0 corrupt=0 in=0 out=5064 stores=1'
tool get s3://jitcache/team/ci get a 5000
check "get: the entry back, checked, with put's data" has get '^get 1 ok$'
check "get counts the bytes in, said nothing" eval 'has get "in=5064 " && said get 0'
AWS_SESSION_TOKEN=token-of-a-session tool token s3://jitcache/team/ci get a 5000
check "with AWS_SESSION_TOKEN: x-amz-security-token sent and signed, radosgw verifies it" \
	has token '^get 1 ok$'
tool absent s3://jitcache/team/ci get b
check "an absent key: a miss (0), no error, nothing said" \
	eval 'has absent "^get 0$" && has absent "errors=0" && said absent 0'
tool other s3://jitcache/team/other get a
check "another prefix is another place" has other '^get 0$'
tool flat -l flat s3://jitcache/flat put a 100
tool flatget -l flat s3://jitcache/flat get a 100
tool flatsub s3://jitcache/flat get a
check "flat layout on S3: put and got back; not where subdirs looks" \
	eval 'has flat "^put 0$" && has flatget "^get 1 ok$" && has flatsub "^get 0$"'
tool bazel -l bazel s3://jitcache get a 100
tool bazelput -l bazel s3://jitcache put a 100
tool bazelget -l bazel s3://jitcache get a 100
check "bazel layout, no prefix: put and got back" \
	eval 'has bazel "^get 0$" && has bazelput "^put 0$" && has bazelget "^get 1 ok$"'
tool big s3://jitcache/team/ci put big 2000000
tool bigget -m 100000 s3://jitcache/team/ci get big
check "an object larger than the limit: a miss, not read, one line" \
	eval 'has bigget "^get 0$" && has bigget "corrupt=1 in=0 " && said bigget 1'

# ---- credentials -----------------------------------------------------------------------
key=$AWS_ACCESS_KEY_ID secret=$AWS_SECRET_ACCESS_KEY
AWS_SECRET_ACCESS_KEY=wrong tool wrong s3://jitcache/team/ci get a
check "a wrong secret: -1, counted, one line (HTTP 403)" \
	eval 'has wrong "^get -1$" && has wrong "errors=1" && said wrong 1 && has wrong "HTTP 403"'
AWS_SECRET_ACCESS_KEY=wrong tool wrongput s3://jitcache/team/ci put c 10
check "a wrong secret: put -1 too" has wrongput '^put -1$'
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
mkdir -p "$HOME/.aws"
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$key" "$secret" \
	>"$HOME/.aws/credentials"
tool profile s3://jitcache/team/ci get a 5000
check "credentials from ~/.aws/credentials [default]" has profile '^get 1 ok$'
printf '[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n\n[ci]\n# ours\naws_access_key_id=%s\naws_secret_access_key=%s\n' \
	"$key" "$secret" >"$HOME/.aws/credentials"
AWS_PROFILE=ci tool named s3://jitcache/team/ci get a 5000
check "credentials from the profile AWS_PROFILE names" has named '^get 1 ok$'
tool default s3://jitcache/team/ci get a
check "... and not from [default] then" has default '^get -1$'
AWS_SHARED_CREDENTIALS_FILE=$T/none tool nocreds s3://jitcache/team/ci get a
check "no credentials anywhere: not opened, one line" \
	eval 'has nocreds "^open failed$" && said nocreds 1'
export AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret
tool auth -a /dev/null s3://jitcache/team/ci get a
check "an auth_file with S3: not opened, one line" eval 'has auth "^open failed$" && said auth 1'
tool badbucket s3://Bad_Bucket/x get a
check "a bucket name S3 would refuse: not opened, one line" \
	eval 'has badbucket "^open failed$" && said badbucket 1'

# A prefix with '..' would leave the bucket: libcurl removes dot segments
# (issue 35, item 11), so s3://jitcache/../other wrote to bucket "other".
check "another bucket made" s3_make_bucket other
n=0
for prefix in .. ../other team/../../other ./x; do
	n=$((n + 1))
	tool "dots-$n" s3://jitcache/$prefix put a 100
	check "prefix $prefix: refused, one line, nothing written" \
		eval 'has "dots-$n" "^open failed$" && said "dots-$n" 1'
done
tool other-get s3://other get a
check "... bucket other holds no object of ours" has other-get '^get 0$'
tool dotted s3://jitcache/v1..2/a.b put a 100
check "dots inside a name are no segment: s3://jitcache/v1..2/a.b stores" has dotted '^put 0$'

# ---- faults -------------------------------------------------------------------------------
tool nobucket s3://no-such-bucket/x put a 10
check "a bucket that does not exist: put -1, one line" \
	eval 'has nobucket "^put -1$" && said nobucket 1'
tool bench s3://jitcache/team/ci bench a 200
check "200 lookups of one entry: every one a hit" has bench 'hits=200/200'
sed -n 's/^bench/radosgw loopback GET hit (5 KB entry):/p' "$T/bench.out"
stop_server radosgw
tool down -t 2 -T 1 s3://jitcache/team/ci get a
check "radosgw gone: -1, one line, within the timeout" \
	eval 'has down "^get -1$" && said down 1 && ended down'
check "no sanitizer report from any run (SANITIZE builds)" \
	eval '! grep -lE "Sanitizer|runtime error" "$T"/*.out'
finish
