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
#   start_registry DIR USER PASSWORD Debian's docker-registry (the OCI Distribution
#                                    API) with htpasswd auth and TLS (a CA and a
#                                    certificate made in DIR): sets REGISTRY_HOST
#                                    (127.0.0.1:PORT), REGISTRY_CA (DIR/ca.pem) and
#                                    REGISTRY_DATA (its storage directory)
#   docker_login DIR HOST USER PASSWORD  write DIR/config.json naming them (DOCKER_CONFIG)
#   stop_server nginx|radosgw|registry  stop it (SIGTERM, then wait)
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
	# radosgw before its cluster: it waits for the monitor to shut down
	for n in radosgw ceph-osd ceph-mon "${!SERVER_PIDS[@]}"; do stop_server "$n"; done
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

# make_tls_cert DIR: DIR/ca.pem, and DIR/srv.pem, DIR/srv.key for 127.0.0.1 signed by it.
make_tls_cert() {
	(
		cd "$1" || exit 1
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
			-out ca.pem -days 2 -subj /CN=jitcache-test-ca \
			-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key \
			-out srv.csr -subj /CN=127.0.0.1
		printf 'subjectAltName=IP:127.0.0.1\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' >ext
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
			-extfile ext -out srv.pem
	) >"$1/openssl.log" 2>&1
}

start_registry() {
	local dir=$1 user=$2 password=$3 port
	command -v docker-registry >/dev/null ||
		{ echo "docker-registry is not installed (make deps)" >&2; return 1; }
	mkdir -p "$dir/data"
	make_tls_cert "$dir" || { cat "$dir/openssl.log" >&2; return 1; }
	htpasswd -Bbn "$user" "$password" >"$dir/htpasswd" # the registry takes bcrypt alone
	port=$(free_port)
	cat >"$dir/config.yml" <<EOF
version: 0.1
log: { level: warn, accesslog: { disabled: true } }
storage: { filesystem: { rootdirectory: $dir/data }, delete: { enabled: true } }
http:
  addr: 127.0.0.1:$port
  tls: { certificate: $dir/srv.pem, key: $dir/srv.key }
auth:
  htpasswd: { realm: jitcache-test, path: $dir/htpasswd }
EOF
	docker-registry serve "$dir/config.yml" >>"$dir/registry.log" 2>&1 &
	SERVER_PIDS[registry]=$!
	REGISTRY_HOST=127.0.0.1:$port REGISTRY_CA=$dir/ca.pem REGISTRY_DATA=$dir/data
	wait_http "https://$REGISTRY_HOST/v2/" || { cat "$dir/registry.log" >&2; return 1; }
}

docker_login() {
	mkdir -p "$1"
	printf '{"auths": {"%s": {"auth": "%s"}}}\n' "$2" "$(printf %s "$3:$4" | base64 -w0)" \
		>"$1/config.json"
	chmod 600 "$1/config.json"
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

# A one-node Ceph cluster on the loopback, as light as it goes: its monitor
# (messenger v2 only, no authentication), one OSD keeping its objects in
# memory (memstore, up to 512 MiB), no manager, pools of one copy and 8
# placement groups; then radosgw on it, as start_radosgw.
start_radosgw_cluster() {
	local dir=$1 mon_port port uuid i testbed=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
	local run=$ROOT/tests/testbed/run conf=$1/ceph.conf
	for i in radosgw ceph-mon ceph-osd; do
		[ -x "$testbed/usr/bin/$i" ] && continue
		echo "no $i in the test bed $testbed (make testbed-s3)" >&2
		return 1
	done
	mon_port=$(free_port) port=$(free_port)
	uuid=$(cat /proc/sys/kernel/random/uuid)
	mkdir -p "$dir/mon" "$dir/osd0"
	cat >"$conf" <<-CONF
	[global]
	fsid = $(cat /proc/sys/kernel/random/uuid)
	mon_host = v2:127.0.0.1:$mon_port
	ms_bind_msgr1 = false
	public_network = 127.0.0.0/8
	auth_cluster_required = none
	auth_service_required = none
	auth_client_required = none
	ms_mon_client_mode = crc
	ms_client_mode = crc
	keyring = $dir/keyring
	run_dir = $dir
	admin_socket = $dir/\$name.asok
	log_file = $dir/\$name.log
	pid_file = $dir/\$name.pid
	osd_pool_default_size = 1
	osd_pool_default_min_size = 1
	osd_pool_default_pg_num = 8
	osd_pool_default_pgp_num = 8
	osd_pool_default_pg_autoscale_mode = off
	mon_allow_pool_size_one = true
	mon_data_avail_crit = 1
	mon_data_avail_warn = 2
	osd_crush_chooseleaf_type = 0
	[mon]
	mon_data = $dir/mon
	[osd]
	osd_data = $dir/osd\$id
	osd_objectstore = memstore
	memstore_device_bytes = 536870912
	osd_class_dir = /usr/lib/x86_64-linux-gnu/rados-classes
	[client]
	rgw_data = $dir
	rgw_frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
	rgw_thread_pool_size = 64
	rgw_enable_gc_threads = false
	rgw_enable_lc_threads = false
	rgw_dynamic_resharding = false
	CONF
	# shellcheck disable=SC2016
	"$run" sh -c 'ceph-authtool --create-keyring "$1/keyring" --gen-key -n mon. \
			--cap mon "allow *" &&
		monmaptool --create --add a "v2:127.0.0.1:$2" \
			--fsid "$(ceph-conf -c "$1/ceph.conf" fsid)" "$1/monmap" &&
		ceph-mon -c "$1/ceph.conf" --mkfs -i a --monmap "$1/monmap"' \
		sh "$dir" "$mon_port" >"$dir/mkfs.log" 2>&1 ||
		{ tail -n 20 "$dir/mkfs.log" >&2; return 1; }
	"$run" ceph-mon -c "$conf" -i a -f >"$dir/ceph-mon.out" 2>&1 &
	SERVER_PIDS[ceph-mon]=$!
	# shellcheck disable=SC2016
	"$run" sh -c 'ceph -c "$1" --connect-timeout 20 osd new "$2" >/dev/null &&
		ceph-osd -c "$1" -i 0 --mkfs --osd-uuid "$2"' sh "$conf" "$uuid" \
		>>"$dir/mkfs.log" 2>&1 || { tail -n 20 "$dir/mkfs.log" >&2; return 1; }
	"$run" ceph-osd -c "$conf" -i 0 -f >"$dir/ceph-osd.out" 2>&1 &
	SERVER_PIDS[ceph-osd]=$!
	export AWS_ACCESS_KEY_ID=jitcache-test AWS_SECRET_ACCESS_KEY=secret-$RANDOM$RANDOM
	export AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:$port
	timeout 60 "$run" radosgw-admin -c "$conf" user create \
		--uid=jitcache --display-name=jitcache --access-key="$AWS_ACCESS_KEY_ID" \
		--secret-key="$AWS_SECRET_ACCESS_KEY" >"$dir/user.log" 2>&1 ||
		{ tail -n 20 "$dir/user.log" >&2; return 1; }
	"$run" radosgw -c "$conf" -n client.rgw -f >"$dir/radosgw.out" 2>&1 &
	SERVER_PIDS[radosgw]=$!
	for i in 1 2 3 4; do # 5 s each
		wait_http "$AWS_ENDPOINT_URL/" && return 0
	done
	tail -n 20 "$dir/radosgw.out" >&2
	return 1
}

s3_make_bucket() {
	"$B/tests/jc_http_tool" "$AWS_ENDPOINT_URL" sign PUT "/$1" >"$T/s3-sign-$1" &&
		curl -sf -o /dev/null -X PUT -H @"$T/s3-sign-$1" "$AWS_ENDPOINT_URL/$1"
}
