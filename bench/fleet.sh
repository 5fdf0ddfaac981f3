#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/fleet.sh OUTDIR — a driver rollout across a simulated fleet (issue 39,
# item 4): N nodes (FLEET_NODES, "4 16 64"; each its own process and empty cache
# directory) start the same module at the same moment against one remote
# with default settings: Redis, nginx with WebDAV locks (http: Debian's
# libnginx-mod-http-dav-ext, its lock zone's timeout the default lease, 10 s),
# nginx without them (http-plain: PUT and DELETE only, no lease) and radosgw
# (S3, from the test bed: make testbed-s3; on a one-node Ceph cluster, whose
# conditional writes hold the S3 leases, else on its SQLite backend, which
# ignores them and so holds none: "fleet s3 backend: rados|dbstore" says
# which), all started here on 127.0.0.1 (FLEET_REMOTES: which of them,
# "redis http http-plain s3").  The module is
# conv.cl's 22 kernels twice over (tests/integration/fleet_redis.sh's), a few
# seconds of JIT on the simulated Arc (Debian 12 driver).
#
# Per remote and N it prints one line
#   fleet REMOTE N compiles=C created=K req_per_node=R warm_p50=S warm_p99=S
#         warm_max=S alone=S server_cpu_s=S reqs=METHOD:COUNT,...
#   compiles   nodes whose exit line (JITCACHE_LOG=info) counts a miss
#   created    nodes whose module the driver created (44 kernels)
#   req_per_node  the server's requests for the rollout / N (Redis: the commands
#              nodes sent, from MONITOR, not those its scripts ran; nginx's access
#              log, leases' requests included; radosgw's log at its default
#              debug_rgw 1)
#   warm_*     seconds from the common start until a node exits with its
#              module (p50, p99 by nearest rank, max)
#   alone      one node alone against the same remote, cold (empty remote)
#   server_cpu_s  the server's user+system CPU over the rollout (/proc/PID/stat,
#              the process and its children; S3: radosgw, ceph-osd and ceph-mon)
# and "fleet none 1 ... warm_max=S": one node, no remote, cold.  After each
# rollout, N fresh nodes against the place it filled: "fleet_warm REMOTE N
# hits=H created=K req_per_node=R warm_max=S reqs=..." (a hit's requests).
# Then the killed server (FLEET_KILL=0 skips the hostile cases, FLEET_KILL=
# holder runs only the killed holder's): FLEET_KILL_N nodes (4) start, the
# server is SIGKILLed 1 s in (at=compile) or as the first node exits
# (at=stores), restarted on the same data, and a fresh node runs:
# "fleet_kill REMOTE at=WHEN created=K/N compiles=C warm_max=S later=RESULT"
# (every node must still create its module; later: the fresh node's module
# created from whatever the restarted server holds, a hit or a miss).
# Then a node killed while it holds the compile lease (below: fleet_holder).
# The plot: OUT/fleet.png (time until every node is warm against N, per remote).
# FLEET_NETNS=1 puts each node in its own network namespace, FLEET_DELAY_MS=D
# adds D ms each way (below: the nodes' network).  Each fleet line ends with
# the load average (1 min) as it finished; the last line, the run's wall time.
set -u
. "$(dirname "$0")/lib.sh"
bench_init fleet build "${1:-}"
bench_isolate
CLIENT=$B/tests/ze_client
bench_need "make tests" "$CLIENT" "$B/libjitcache.so" "$B/tests/jc_http_tool"
command -v nginx >/dev/null || { echo "fleet bench: nginx missing (make deps)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "fleet bench: redis-server missing (make deps)" >&2; exit 1; }
command -v ocloc >/dev/null || { echo "fleet bench: ocloc missing (make deps)" >&2; exit 1; }
NODES=${FLEET_NODES:-4 16 64}
BENCH_T0=$(date +%s)
T=$W # the servers' helpers keep their files under $T
. "$ROOT/tests/servers.bash"
bench_at_exit stop_servers
cd "$W" || exit 1 # the simulation's .aub files land here
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NEO_CACHE_PERSISTENT=0 JITCACHE_RECIPES=0
unset JITCACHE_REMOTE JITCACHE_LAYERS JITCACHE_TRUSTED_KEYS JITCACHE_SIGNING_KEY
status=0

# ---- the module -------------------------------------------------------------------
KERNELS=$ROOT/examples/kernels
{
	grep -v '^[A-Z0-9_]*([a-z0-9_]*,' "$KERNELS/conv.cl"
	for i in 1 2; do
		sed -n "s/^\([A-Z0-9_]*\)(\([a-z0-9_]*\),/\1(\2_$i,/p" "$KERNELS/conv.cl"
	done
} >"$W/fleet.cl"
ocloc compile -q -spv_only -file "$W/fleet.cl" -device dg2 -output "$W/fleet" -output_no_suffix \
	>"$OUT/logs/fleet-ocloc.log" 2>&1 && [ -s "$W/fleet.spv" ] || { echo "fleet bench: ocloc failed" >&2; exit 1; }
MOD=$W/fleet.spv

# ---- the nodes' network: the loopback, or a namespace each (FLEET_NETNS=1) ------------------
# With FLEET_NETNS=1 node I runs in its own network namespace, joined by a
# veth pair to a bridge in this one that holds the servers' address
# (SRV, 10.231.0.1/16; the nodes 10.231.0.2 on); the servers listen there as
# well as on 127.0.0.1.  FLEET_DELAY_MS=D delays each packet D ms each way
# with tc netem on both ends of each veth where the kernel has sch_netem;
# where it has not, a relay per node in its namespace (bench/fleet_relay.py)
# listens on the namespace's 127.0.0.1 at the servers' ports and holds each
# chunk D ms each way on its way over the veth: the latency of a link, not
# its packets (no loss, no rate).  Everything is removed at exit.
NETNS=${FLEET_NETNS:-0} DELAY=${FLEET_DELAY_MS:-0} SRV="" NHOST=127.0.0.1 RELAY=0
PY=$(command -v /usr/bin/python3 python3 | head -n 1)
NSP=jcf$$ # the names of this run's namespaces (NSP-I), veths (NSPhI) and bridge (NSPbr)
NS_MADE=0 RELAY_PIDS=()
# as many as the largest rollout or the hostile cases' FLEET_KILL_N take
max_nodes() { echo "$NODES ${FLEET_KILL_N:-4}" | tr ' ' '\n' | sort -n | tail -n 1; }
netns_down() {
	local i p
	for p in "${RELAY_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for i in $(seq 1 "$NS_MADE"); do ip netns del "$NSP-$i" 2>/dev/null; done
	ip netns del "${NSP}-probe" 2>/dev/null # interrupted while looking for sch_netem
	ip link del "${NSP}br" 2>/dev/null
	NS_MADE=0 RELAY_PIDS=()
}
netns_up() {
	local i n a
	n=$(max_nodes)
	[ "$n" -le 500 ] || { echo "fleet bench: FLEET_NETNS=1 takes 500 nodes at most" >&2; return 1; }
	ip -4 addr | grep -q ' 10\.231\.' && { echo "fleet bench: 10.231.0.0/16 is in use here" >&2; return 1; }
	ip link add "${NSP}br" type bridge forward_delay 0 && ip addr add 10.231.0.1/16 dev "${NSP}br" &&
		ip link set "${NSP}br" up || return 1
	SRV=10.231.0.1 NHOST=10.231.0.1
	if [ "$DELAY" != 0 ]; then
		ip netns add "${NSP}-probe" && ip -n "${NSP}-probe" link set lo up
		if ip netns exec "${NSP}-probe" tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then
			echo "fleet netns: delay ${DELAY} ms each way by tc netem on both ends of each veth"
		else
			RELAY=1 NHOST=127.0.0.1
			echo "fleet netns: no sch_netem in this kernel (tc netem): delay ${DELAY} ms each way by a relay per node (bench/fleet_relay.py)"
		fi
		ip netns del "${NSP}-probe"
	fi
	for i in $(seq 1 "$n"); do
		a=10.231.$(((i + 1) / 256)).$(((i + 1) % 256))
		ip netns add "$NSP-$i" || return 1
		NS_MADE=$i
		ip link add "${NSP}h$i" type veth peer name eth0 netns "$NSP-$i" &&
			ip link set "${NSP}h$i" master "${NSP}br" up &&
			ip -n "$NSP-$i" addr add "$a/16" dev eth0 && ip -n "$NSP-$i" link set eth0 up &&
			ip -n "$NSP-$i" link set lo up || return 1
		if [ "$DELAY" != 0 ] && [ "$RELAY" = 0 ]; then
			tc qdisc add dev "${NSP}h$i" root netem delay "${DELAY}ms" &&
				ip netns exec "$NSP-$i" tc qdisc add dev eth0 root netem delay "${DELAY}ms" || return 1
		fi
	done
	echo "fleet netns: $n namespaces, each a veth to bridge ${NSP}br, servers at $SRV"
}
# relays_up PORT...: the relays, one per node namespace, for the servers' ports
relays_up() {
	local i p
	[ "$RELAY" = 1 ] || return 0
	for i in $(seq 1 "$NS_MADE"); do
		ip netns exec "$NSP-$i" "$PY" "$ROOT/bench/fleet_relay.py" "$DELAY" 127.0.0.1 "$SRV" "$@" \
			>"$W/relay-$i.out" 2>&1 &
		RELAY_PIDS+=($!)
	done
	for i in $(seq 1 "$NS_MADE"); do
		for _ in $(seq 1 400); do grep -q ready "$W/relay-$i.out" && continue 2; sleep 0.025; done
		echo "fleet bench: relay $i did not start: $(cat "$W/relay-$i.out")" >&2
		return 1
	done
}
# as_node I CMD...: CMD as node I (in its namespace, the servers at their address there)
as_node() {
	local i=$1
	shift
	if [ "$NETNS" = 1 ]; then
		ip netns exec "$NSP-$i" env ${AWS_ENDPOINT_URL:+AWS_ENDPOINT_URL="$(nodeurl "$AWS_ENDPOINT_URL")"} "$@"
	else
		"$@"
	fi
}
nodeurl() { echo "${1/127.0.0.1/$NHOST}"; }
# nodes still running at exit go first (Ctrl-C, a failure)
ROLL_PIDS=()
nodes_down() {
	local p
	for p in "${ROLL_PIDS[@]}"; do kill -KILL $(descendants "$p") 2>/dev/null; done
}
bench_at_exit nodes_down
if [ "$NETNS" = 1 ]; then
	command -v ip >/dev/null && [ "$(id -u)" = 0 ] ||
		{ echo "fleet bench: FLEET_NETNS=1 needs root and ip (iproute2)" >&2; exit 1; }
	bench_at_exit netns_down
	netns_up || { echo "fleet bench: the nodes' namespaces could not be made" >&2; exit 1; }
	no_proxy=$SRV,$no_proxy NO_PROXY=$SRV,$no_proxy
	export no_proxy NO_PROXY
elif [ "$DELAY" != 0 ]; then
	echo "fleet bench: FLEET_DELAY_MS needs FLEET_NETNS=1" >&2
	exit 2
fi

# kill_server REMOTE, restart_server REMOTE: SIGKILLed; started again on the same data
kill_server() {
	local p
	case $1 in
	redis) kill -KILL "$RPID"; wait "$RPID" 2>/dev/null ;;
	http | http-plain)
		p=${SERVER_PIDS[$([ "$1" = http ] && echo nginx || echo nginx-plain)]}
		kill -KILL $(descendants "$p" | tac); wait "$p" 2>/dev/null ;;
	s3) # radosgw runs as root in the test bed (tests/testbed/run, through sudo)
		for p in $(descendants "${SERVER_PIDS[radosgw]}" | tac); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = radosgw ] && { kill -KILL "$p" 2>/dev/null || sudo kill -KILL "$p"; }
		done
		wait "${SERVER_PIDS[radosgw]}" 2>/dev/null ;;
	esac
}
restart_server() {
	case $1 in
	redis) start_redis ;;
	http | http-plain)
		local d=$W/$(ngdir "$1")
		nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" 2>>"$d/error.log" &
		SERVER_PIDS[$([ "$1" = http ] && echo nginx || echo nginx-plain)]=$!
		wait_http "$(url "$1" "")" ;;
	s3) "$ROOT/tests/testbed/run" radosgw -c "$RGW/ceph.conf" $RGW_ARGS -f >>"$RGW/radosgw.out" 2>&1 &
		SERVER_PIDS[radosgw]=$!
		for _ in 1 2 3 4; do wait_http "$AWS_ENDPOINT_URL/" && return 0; done # 5 s each
		return 1 ;;
	esac
}
# ---- the servers ------------------------------------------------------------------------
RPORT=$(free_port)
start_redis() {
	redis-server --bind 127.0.0.1 ${SRV:-} ${SRV:+--protected-mode no} --port "$RPORT" --save '' --appendonly no --dir "$W" \
		--logfile "$W/redis.log" &
	RPID=$!
	for _ in $(seq 1 200); do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.025; done
	return 1
}
start_redis || { echo "fleet bench: redis did not start" >&2; exit 1; }
bench_at_exit 'kill $RPID 2>/dev/null; wait $RPID 2>/dev/null'
WANT=${FLEET_REMOTES:-redis http http-plain s3}
# http-plain: nginx's WebDAV without locks; http: with dav-ext's LOCK
case " $WANT " in *" http-plain "*)
	start_nginx_dav "$W/plain" >"$OUT/logs/fleet-nginx-plain.log" 2>&1 || { echo "fleet bench: nginx did not start" >&2; exit 1; }
	PLAIN_URL=$NGINX_URL
	SERVER_PIDS[nginx-plain]=${SERVER_PIDS[nginx]} ;;
esac
case " $WANT " in *" http "*)
	NGINX_LOCKS=10 start_nginx_dav "$W/ng" >"$OUT/logs/fleet-nginx.log" 2>&1 ||
		{ echo "fleet bench: nginx with dav-ext did not start (libnginx-mod-http-dav-ext)" >&2; exit 1; } ;;
esac
have_s3=0
# debug_rgw 1 logs each request's method, path and status ("beast: ... "GET /...").
case " $WANT " in *" s3 "*)
	RGW=$W/rgw RGW_LOG=$W/rgw/client.rgw.log RGW_ARGS="-n client.rgw" S3_BACKEND=rados
	if ! start_radosgw_cluster "$RGW" >"$OUT/logs/fleet-radosgw.log" 2>&1; then
		for n in radosgw ceph-osd ceph-mon; do stop_server "$n"; done # not nginx
		RGW=$W/rgw-db RGW_LOG=$W/rgw-db/radosgw.log RGW_ARGS=--no-mon-config S3_BACKEND=dbstore
		start_radosgw "$RGW" >>"$OUT/logs/fleet-radosgw.log" 2>&1 || S3_BACKEND=""
	fi
	if [ -n "$S3_BACKEND" ] && s3_make_bucket jitcache-fleet; then
		have_s3=1
		echo "fleet s3 backend: $S3_BACKEND"
	else
		echo "fleet bench: radosgw did not start (make testbed-s3): no S3 row" >&2
		status=1
	fi ;;
esac

# descendants PID: PID and every process below it
descendants() {
	local p
	echo "$1"
	for p in $(pgrep -P "$1"); do descendants "$p"; done
}
# cpu_ticks NAME: user+system clock ticks of the server NAME and its children
cpu_ticks() {
	local pid p sum=0 f
	case $1 in
	redis) pid=$RPID ;; http) pid=${SERVER_PIDS[nginx]} ;; http-plain) pid=${SERVER_PIDS[nginx-plain]} ;;
	s3) pid="${SERVER_PIDS[radosgw]} ${SERVER_PIDS[ceph-osd]:-} ${SERVER_PIDS[ceph-mon]:-}" ;;
	esac
	for p in $(for q in $pid; do descendants "$q"; done); do
		f=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
		# after "(comm) ": field 3 is state, so utime and stime are the 12th and 13th
		set -- $f
		sum=$((sum + ${12} + ${13}))
	done
	echo "$sum"
}
HZ=$(getconf CLK_TCK)

# FLEET_NETNS=1: the servers listen on SRV too (nginx reloaded, radosgw
# restarted), and each node reaches each of them from its namespace
if [ "$NETNS" = 1 ]; then
	ports="$RPORT"
	for d in plain ng; do
		[ -f "$W/$d/nginx.conf" ] || continue
		sed -i "s|^\(\t*\)listen 127.0.0.1:\([0-9]*\) \(.*\);|&\n\1listen $SRV:\2 \3;|" "$W/$d/nginx.conf"
		nginx -p "$W/$d" -e "$W/$d/error.log" -c "$W/$d/nginx.conf" -s reload 2>>"$W/$d/error.log"
		ports="$ports $(sed -n "s|^\t*listen $SRV:\([0-9]*\).*|\1|p" "$W/$d/nginx.conf")"
	done
	if [ "$have_s3" = 1 ]; then
		sed -i "s|endpoint=127.0.0.1:\([0-9]*\)|& endpoint=$SRV:\1|" "$RGW/ceph.conf"
		kill_server s3
		restart_server s3 >>"$OUT/logs/fleet-restart.log" 2>&1 || { echo "fleet bench: radosgw did not restart" >&2; exit 1; }
		ports="$ports ${AWS_ENDPOINT_URL##*:}"
	fi
	relays_up $ports || exit 1
	for i in $(seq 1 "$NS_MADE"); do
		as_node "$i" redis-cli -h "$NHOST" -p "$RPORT" ping 2>/dev/null | grep -q PONG ||
			{ echo "fleet bench: node $i does not reach Redis at $NHOST:$RPORT" >&2; exit 1; }
		for u in ${PLAIN_URL:-} ${NGINX_URL:-} $([ "$have_s3" = 1 ] && echo "$AWS_ENDPOINT_URL"); do
			for _ in $(seq 1 100); do
				as_node "$i" curl -sk -o /dev/null --max-time 2 "$(nodeurl "$u")/" && continue 2
				sleep 0.05
			done
			echo "fleet bench: node $i does not reach $(nodeurl "$u")" >&2
			exit 1
		done
	done
fi

# url REMOTE TAG: the remote's place for one rollout (a fresh, empty one)
url() {
	case $1 in
	redis) echo "redis://127.0.0.1:$RPORT" ;;
	http) echo "$NGINX_URL/$2" ;;
	http-plain) echo "$PLAIN_URL/$2" ;;
	s3) echo "s3://jitcache-fleet/$2" ;;
	esac
}
# requests REMOTE TAG [LINE]: "TOTAL METHOD:COUNT,..." the server saw for TAG
# (in its log from LINE on, for nginx and radosgw)
requests() {
	case $1 in
	redis) # the commands clients sent, not those scripts ran ("[0 lua]")
		grep -a '^[0-9.]* \[[0-9]* [0-9.]*:[0-9]*\] "' "$W/redis.mon" |
			sed 's/^[^]]*\] "\([A-Za-z]*\)".*/\1/' | sort | uniq -c |
			awk '{ n += $1; s = s sprintf("%s%s:%d", s == "" ? "" : ",", $2, $1) } END { print n + 0, s }'
		;;
	http | http-plain)
		tail -n "+${3:-1}" "$W/$(ngdir "$1")/access.log" | awk -v tag="/$2/" 'index($7, tag) == 1 { n++; m[substr($6, 2)]++ } END {
			for (k in m) s = s sprintf("%s%s:%d", s == "" ? "" : ",", k, m[k]); print n + 0, s }'
		;;
	s3)
		tail -n "+${3:-1}" "$RGW_LOG" |
			grep -aE 'beast: .*"(GET|PUT|HEAD|POST|DELETE) /jitcache-fleet/'"$2"'/' |
			sed -E 's/.*"(GET|PUT|HEAD|POST|DELETE) .*/\1/' | sort | uniq -c |
			awk '{ n += $1; s = s sprintf("%s%s:%d", s == "" ? "" : ",", $2, $1) } END { print n + 0, s }'
		;;
	esac
}
# Redis's requests are counted by MONITOR, from reset_counts to monitor_stop:
# commandstats would count the commands its scripts run too.
MON_PID=""
monitor_stop() {
	[ -n "$MON_PID" ] || return 0
	sleep 0.2 # the last commands
	kill "$MON_PID" 2>/dev/null
	wait "$MON_PID" 2>/dev/null
	MON_PID=""
}
bench_at_exit monitor_stop
ngdir() { [ "$1" = http ] && echo ng || echo plain; }
reset_counts() { # REMOTE [keep]: Redis emptied (unless keep), its counting started
	[ "$1" = redis ] || return 0
	[ "${2:-}" = keep ] || redis-cli -p "$RPORT" FLUSHALL >/dev/null
	monitor_stop
	redis-cli -p "$RPORT" MONITOR >"$W/redis.mon" 2>&1 &
	MON_PID=$!
	for _ in $(seq 1 200); do grep -q OK "$W/redis.mon" 2>/dev/null && return 0; sleep 0.025; done
}

# rollout REMOTE TAG N [PLACE]: N nodes at once, against the remote's place
# PLACE (TAG's by default); each writes its seconds-to-module in
# $W/TAG/NODE.t and its output in $W/TAG/NODE.out
rollout() {
	local remote=$1 tag=$2 n=$3 i t0 u pids=()
	mkdir -p "$W/$tag"
	u=$([ "$remote" = none ] || nodeurl "$(url "$remote" "${4:-$tag}")")
	t0=$(date +%s.%N)
	for i in $(seq 1 "$n"); do
		(
			as_node "$i" env JITCACHE_DIR="$W/$tag/cache-$i" JITCACHE_LOG=info ${u:+JITCACHE_REMOTE="$u"} \
				LD_PRELOAD="$B/libjitcache.so" "$CLIENT" link "$MOD" >"$W/$tag/$i.out" 2>&1
			echo "$(date +%s.%N) $t0" | awk '{ printf "%.3f\n", $1 - $2 }' >"$W/$tag/$i.t"
		) &
		pids+=($!)
	done
	ROLL_PIDS=("${pids[@]}")
}
created() { cat "$W/$1"/*.out | grep -c "result 0x0 kernels 44" || true; }
compiled() { cat "$W/$1"/*.out | grep -cE "^jitcache: [0-9]+ hits, [1-9][0-9]* misses" || true; }
# pct P FILE...: the P-th percentile (nearest rank) of the numbers in FILEs
pct() {
	local p=$1
	shift
	cat "$@" | sort -g | awk -v p="$p" '{ v[NR] = $1 } END { r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}

# ---- one node, no remote, cold ------------------------------------------------------------
rollout none alone-none 1
wait "${ROLL_PIDS[@]}"
echo "fleet none 1 compiles=$(compiled alone-none) created=$(created alone-none) warm_max=$(cat "$W/alone-none/1.t")"
echo "remote n warm_p50 warm_p99 warm_max alone compiles req_per_node server_cpu_s" >"$OUT/fleet.dat"

remotes=""
for r in $WANT; do
	[ "$r" != s3 ] || [ "$have_s3" = 1 ] && remotes="$remotes $r"
done
for remote in $remotes; do
	reset_counts "$remote"
	rollout "$remote" "alone-$remote" 1
	wait "${ROLL_PIDS[@]}"
	alone=$(cat "$W/alone-$remote/1.t")
	for n in $NODES; do
		tag=n$n-$remote
		reset_counts "$remote"
		c0=$(cpu_ticks "$remote")
		rollout "$remote" "$tag" "$n"
		wait "${ROLL_PIDS[@]}"
		sleep 0.2 # the server's last log lines
		c1=$(cpu_ticks "$remote")
		monitor_stop
		read -r total methods < <(requests "$remote" "$tag")
		p50=$(pct 50 "$W/$tag"/*.t) p99=$(pct 99 "$W/$tag"/*.t) max=$(pct 100 "$W/$tag"/*.t)
		cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')
		rpn=$(awk -v t="$total" -v n="$n" 'BEGIN { printf "%.2f", t / n }')
		echo "fleet $remote $n compiles=$(compiled "$tag") created=$(created "$tag") req_per_node=$rpn" \
			"warm_p50=$p50 warm_p99=$p99 warm_max=$max alone=$alone server_cpu_s=$cpu reqs=${methods:-none}" \
			"load=$(cut -d" " -f1 /proc/loadavg)"
		echo "$remote $n $p50 $p99 $max $alone $(compiled "$tag") $rpn $cpu" >>"$OUT/fleet.dat"
		[ "$(created "$tag")" = "$n" ] || status=1
		# then N fresh nodes against the place the rollout filled: hits
		reset_counts "$remote" keep
		from=1
		case $remote in
		http | http-plain) from=$(($(wc -l <"$W/$(ngdir "$remote")/access.log") + 1)) ;;
		s3) from=$(($(wc -l <"$RGW_LOG") + 1)) ;;
		esac
		rollout "$remote" "w$tag" "$n" "$tag"
		wait "${ROLL_PIDS[@]}"
		sleep 0.2
		monitor_stop
		read -r total methods < <(requests "$remote" "$tag" "$from")
		hits=$(cat "$W/w$tag"/*.out | grep -c "^jitcache: 1 hits, 0 misses" || true)
		echo "fleet_warm $remote $n hits=$hits created=$(created "w$tag")" \
			"req_per_node=$(awk -v t="$total" -v n="$n" 'BEGIN { printf "%.2f", t / n }')" \
			"warm_max=$(pct 100 "$W/w$tag"/*.t) reqs=${methods:-none}"
	done
done

# ---- the plot -------------------------------------------------------------------------------
if command -v gnuplot >/dev/null; then
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$OUT/fleet.png'"
		net="loopback"
		[ "$NETNS" = 1 ] && net="a netns each$([ "$DELAY" != 0 ] && echo ", ${DELAY} ms each way")"
		echo "set title \"Driver rollout: time until every node has its module\\n(simulated Arc, 2 cores, $net)\""
		echo "set xlabel 'nodes'; set ylabel 'seconds until the last node had its module (log)'; set key left top"
		echo "set logscale xy; set grid; set xtics ($(echo "$NODES" | sed 's/ /, /g')); set yrange [1:*]"
		echo "set xrange [$(echo "$NODES" | tr ' ' '\n' | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%g:%g", a / 1.4, b * 1.4 }')]"
		printf "plot "
		sep=""
		for remote in $remotes; do
			printf "%s'%s' using 2:(strcol(1) eq '%s' ? \$5 : 1/0) with linespoints title '%s'" \
				"$sep" "$OUT/fleet.dat" "$remote" "$remote"
			sep=", "
		done
		echo
	} >"$W/fleet.gp"
	gnuplot "$W/fleet.gp" 2>"$OUT/logs/fleet-gnuplot.log" || { echo "fleet bench: gnuplot failed" >&2; status=1; }
fi

# ---- the server killed in the middle of a rollout ------------------------------------------------
# when: "compile" (1 s in: the nodes, or Redis's lease holder, compiling) or
# "stores" (as the first node exits: the others storing or loading)
if [ "${FLEET_KILL:-1}" = 1 ]; then
	kn=${FLEET_KILL_N:-4}
	for remote in $remotes; do
		for when in compile stores; do
			tag=kill-$when-$remote
			reset_counts "$remote"
			rollout "$remote" "$tag" "$kn"
			if [ "$when" = compile ]; then
				sleep 1
			else
				for _ in $(seq 1 2400); do
					ls "$W/$tag"/*.t >/dev/null 2>&1 && break
					sleep 0.025
				done
			fi
			kill_server "$remote"
			wait "${ROLL_PIDS[@]}"
			k=$(created "$tag")
			restart_server "$remote" >>"$OUT/logs/fleet-restart.log" 2>&1 ||
				{ echo "fleet bench: $remote did not restart" >&2; status=1; continue 2; }
			# a fresh node from the same place: what the server kept must load or miss, never fail
			mkdir -p "$W/$tag-later"
			as_node 1 env JITCACHE_DIR="$W/$tag-later/cache" JITCACHE_LOG=info \
				JITCACHE_REMOTE="$(nodeurl "$(url "$remote" "$tag")")" LD_PRELOAD="$B/libjitcache.so" "$CLIENT" link "$MOD" >"$W/$tag-later/1.out" 2>&1
			later=$(grep -q "result 0x0 kernels 44" "$W/$tag-later/1.out" && echo created || echo FAILED)
			how=$(sed -n 's/^jitcache: \([0-9]*\) hits, \([0-9]*\) misses.*/\1 hit \2 miss/p' "$W/$tag-later/1.out" | head -n 1)
			echo "fleet_kill $remote at=$when created=$k/$kn compiles=$(compiled "$tag")" \
				"warm_max=$(pct 100 "$W/$tag"/*.t) later=$later (${how:-no exit line})"
			[ "$k" = "$kn" ] && [ "$later" = created ] || status=1
		done
	done
fi
# ---- a node killed while it holds the compile lease ------------------------------------------
# FLEET_KILL_N nodes start against a remote that holds leases (Redis, nginx
# with locks, radosgw over Ceph); the holder is the node compiling: the one
# that has used a second of CPU more than any other (the waiters sleep),
# which is SIGKILLed there.  The others must all create their module, one of
# them compiling once the dead holder's lease (10 s, the default) runs out:
# "fleet_holder REMOTE killed=NODE at=S created=K/N compiles=C after_kill=S"
# (after_kill: from the kill until the last survivor had its module, at
# most a lease time plus one compile).
# proc_cpu PID: its user+system clock ticks
proc_cpu() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
if [ "${FLEET_KILL:-1}" = 1 ] || [ "${FLEET_KILL:-1}" = holder ]; then
	kn=${FLEET_KILL_N:-4}
	for remote in $remotes; do
		case $remote in http-plain) continue ;; s3) [ "$S3_BACKEND" = rados ] || continue ;; esac
		tag=holder-$remote
		reset_counts "$remote"
		rollout "$remote" "$tag" "$kn"
		t0=$(date +%s.%N) victim="" vpid=""
		for _ in $(seq 1 600); do
			sleep 0.1
			best=0 second=0 victim="" vpid=""
			for i in $(seq 1 "$kn"); do
				p=$(pgrep -P "${ROLL_PIDS[$((i - 1))]}" | head -n 1)
				c=$([ -n "$p" ] && proc_cpu "$p")
				[ -n "$c" ] || continue
				if [ "$c" -gt "$best" ]; then
					second=$best best=$c victim=$i vpid=$p
				elif [ "$c" -gt "$second" ]; then
					second=$c
				fi
			done
			[ -n "$vpid" ] && [ $((best - second)) -ge "$HZ" ] && break
			vpid=""
		done
		if [ -z "$vpid" ]; then
			echo "fleet_holder $remote: no node stood out as the compiling one" >&2
			wait "${ROLL_PIDS[@]}"
			status=1
			continue
		fi
		kill -KILL "$vpid"
		tk=$(date +%s.%N)
		wait "${ROLL_PIDS[@]}"
		monitor_stop
		rm -f "$W/$tag/$victim.t"
		k=$(created "$tag")
		echo "fleet_holder $remote killed=node$victim at=$(awk -v a="$t0" -v b="$tk" 'BEGIN { printf "%.3f", b - a }')" \
			"created=$k/$((kn - 1)) compiles=$(compiled "$tag")" \
			"after_kill=$(pct 100 "$W/$tag"/*.t | awk -v a="$t0" -v b="$tk" '{ printf "%.3f", $1 - (b - a) }') lease=10"
		[ "$k" = $((kn - 1)) ] || status=1
	done
fi
for d in "$W"/n*-* "$W"/kill-* "$W"/holder-*; do [ -d "$d" ] && mkdir -p "$OUT/logs/${d##*/}" && cp "$d"/*.out "$OUT/logs/${d##*/}/"; done
echo "fleet bench: $(($(date +%s) - BENCH_T0)) s wall, load average at the end $(cut -d" " -f1-3 /proc/loadavg)"
exit $status
