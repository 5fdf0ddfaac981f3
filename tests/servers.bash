# SPDX-License-Identifier: MIT
# tests/servers.bash — the servers of the remote tiers' tests and benchmarks,
# sourced by tests/lib.sh and bench/web.sh.  Needs ROOT, B (the build) and T
# (a directory of the caller's, removed by it).
# Started by the test on 127.0.0.1 and a free port, with every file in the
# directory given, and stopped when the script exits (stop_servers): never a
# system or shared instance.
#
#   free_port                        a TCP port nobody listens on now
#   start_nginx_dav DIR [CERT KEY]   nginx (Debian's nginx-light) serving DIR/root with
#                                    WebDAV PUT: sets NGINX_URL (https:// with CERT and KEY);
#                                    NGINX_EXTRA: more lines for its location block;
#                                    NGINX_LOCKS=SECONDS: WebDAV LOCK/UNLOCK (Debian's
#                                    libnginx-mod-http-dav-ext), locks living that long
#   start_radosgw DIR                Ceph's radosgw (S3, its SQLite backend) from the test
#                                    bed (make testbed-s3), one user: exports
#                                    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and
#                                    AWS_ENDPOINT_URL (its http://127.0.0.1:PORT)
#   s3_make_bucket NAME              make a bucket there (needs $B/tests/jc_http_tool)
#   stop_server nginx|radosgw        stop it (SIGTERM, then wait)
declare -A SERVER_PIDS=()
# A proxy of the host's is not for these servers.
no_proxy=127.0.0.1,localhost${no_proxy:+,$no_proxy}
export no_proxy NO_PROXY=$no_proxy

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_server() {
	local pid=${SERVER_PIDS[$1]:-}
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unset "SERVER_PIDS[$1]"
}

stop_servers() {
	local n
	for n in "${!SERVER_PIDS[@]}"; do stop_server "$n"; done
}

# wait_http URL: until something answers HTTP there (5 s at most).
wait_http() {
	local i
	for i in $(seq 1 100); do
		curl -sk -o /dev/null --max-time 1 "$1" && return 0
		sleep 0.05
	done
	return 1
}

start_nginx_dav() {
	local dir=$1 cert=${2:-} key=${3:-} port scheme=http ssl="" module="" zone="" locks=""
	command -v nginx >/dev/null || { echo "nginx is not installed (make deps)" >&2; return 1; }
	if [ -n "${NGINX_LOCKS:-}" ]; then
		module=/usr/lib/nginx/modules/ngx_http_dav_ext_module.so
		[ -f "$module" ] || { echo "no $module (apt-get install libnginx-mod-http-dav-ext)" >&2; return 1; }
		module="load_module $module;"
		zone="dav_ext_lock_zone zone=jitcache:1m timeout=${NGINX_LOCKS}s;"
		locks="dav_ext_methods PROPFIND OPTIONS LOCK UNLOCK; dav_ext_lock zone=jitcache;"
	fi
	port=$(free_port)
	mkdir -p "$dir/root" "$dir/tmp"
	if [ -n "$cert" ]; then
		scheme=https
		ssl="ssl; ssl_certificate $cert; ssl_certificate_key $key"
	fi
	cat >"$dir/nginx.conf" <<EOF
$module
daemon off;
worker_processes 1;
user $(id -un) $(id -gn);
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 64; }
http {
	access_log $dir/access.log;
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	client_max_body_size 0;
	$zone
	server {
		listen 127.0.0.1:$port $ssl;
		root $dir/root;
		location / {
			dav_methods PUT DELETE;
			create_full_put_path on;
			$locks
			${NGINX_EXTRA:-}
		}
	}
}
EOF
	nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" 2>>"$dir/error.log" &
	SERVER_PIDS[nginx]=$!
	NGINX_URL=$scheme://127.0.0.1:$port
	wait_http "$NGINX_URL/" || { cat "$dir/error.log" >&2; return 1; }
}

start_radosgw() {
	local dir=$1 port testbed=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
	if [ ! -x "$testbed/usr/bin/radosgw" ]; then
		echo "no radosgw in the test bed $testbed (make testbed-s3)" >&2
		return 1
	fi
	port=$(free_port)
	mkdir -p "$dir"
	cat >"$dir/ceph.conf" <<EOF
[global]
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
log_file = $dir/radosgw.log
admin_socket = $dir/radosgw.asok
[client]
rgw_backend_store = dbstore
rgw_config_store = dbstore
dbstore_db_dir = $dir
rgw_data = $dir
run_dir = $dir
rgw_frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
EOF
	export AWS_ACCESS_KEY_ID=jitcache-test AWS_SECRET_ACCESS_KEY=secret-$RANDOM$RANDOM
	export AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:$port
	"$ROOT/tests/testbed/run" radosgw-admin -c "$dir/ceph.conf" --no-mon-config user create \
		--uid=jitcache --display-name=jitcache --access-key="$AWS_ACCESS_KEY_ID" \
		--secret-key="$AWS_SECRET_ACCESS_KEY" >"$dir/user.log" 2>&1 ||
		{ cat "$dir/user.log" >&2; return 1; }
	"$ROOT/tests/testbed/run" radosgw -c "$dir/ceph.conf" --no-mon-config -f \
		>"$dir/radosgw.out" 2>&1 &
	SERVER_PIDS[radosgw]=$!
	wait_http "$AWS_ENDPOINT_URL/" || { tail -n 20 "$dir/radosgw.out" >&2; return 1; }
}

s3_make_bucket() {
	"$B/tests/jc_http_tool" "$AWS_ENDPOINT_URL" sign PUT "/$1" >"$T/s3-sign-$1" &&
		curl -sf -o /dev/null -X PUT -H @"$T/s3-sign-$1" "$AWS_ENDPOINT_URL/$1"
}
