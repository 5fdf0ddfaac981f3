// SPDX-License-Identifier: MIT
/*
 * redis_cluster.h — what the Redis remote knows of a Redis Cluster: which
 * node serves which hash slot.  A pure map, no I/O: redis.c asks it where
 * a name goes, tells it what the servers answered (MOVED, ASK, CLUSTER
 * SLOTS), and keeps its connections per node index.
 *
 * A URL names one server, node 0 (the "seed").  Nothing says it is a
 * cluster's until it answers a MOVED: from then on (on) every name is sent
 * to the node that serves its slot, and the whole map is asked again
 * (CLUSTER SLOTS) after every MOVED and after a node failed (stale).
 * A single server never answers MOVED, so it costs nothing and sees the
 * same commands as before.  All of a key's names (its value, lease, wake
 * list and note) hash to one slot (redis.c names them with a hash tag),
 * which is what a lease's script needs in a cluster.
 *
 * Shared by a process's threads without a lock (a fork()ed child must not
 * inherit one held): nodes are only ever added, each published once its
 * address is written; a slot's entry is one byte, written whole.  Two
 * threads that learn the same node at once may give it two indices: each
 * then has connections of its own, which is harmless.
 *
 *   unsigned slot = jc_rcluster_slot(name, strlen(name));
 *   int node = jc_rcluster_route(c, slot);                // 0 until on
 *   jc_rcluster_redirect(err, &redir)                     // 1: a MOVED or ASK
 *   jc_rcluster_node(c, host, port)                       // its index, added
 *   jc_rcluster_load(c, reply, asked)                     // a CLUSTER SLOTS answer
 */
#ifndef JC_TIERS_REDIS_CLUSTER_H
#define JC_TIERS_REDIS_CLUSTER_H

#include <hiredis/hiredis.h>
#include <stddef.h>
#include <stdint.h>

#define JC_RCLUSTER_SLOTS 16384
/* Nodes known at most (primaries, and replicas promoted since): a cluster
 * of more is served through the first ones learnt and the redirections of
 * the others' slots (each a round trip more). */
#define JC_RCLUSTER_NODES 64
#define JC_RCLUSTER_HOST 256

struct jc_rcluster_node {
	char host[JC_RCLUSTER_HOST];
	int port;
	int ready; /* host and port written (atomic) */
};

struct jc_rcluster {
	int on;       /* a MOVED was answered: the server is a cluster's (atomic) */
	int stale;    /* the map is to be asked again before its next use (atomic) */
	int reserved; /* node indices taken (atomic; grows only) */
	struct jc_rcluster_node node[JC_RCLUSTER_NODES]; /* node[0]: the URL's */
	uint8_t slot[JC_RCLUSTER_SLOTS]; /* each slot's node index (atomic bytes) */
};

/* A redirection: "MOVED SLOT HOST:PORT" or "ASK SLOT HOST:PORT". */
struct jc_rcluster_redirect {
	unsigned slot;
	int ask;
	char host[JC_RCLUSTER_HOST];
	int port;
};

/* The hash slot of a name: CRC16 of its hash tag ("{...}", the first one,
 * if not empty) or of the whole name, modulo 16384, as Redis computes it. */
unsigned jc_rcluster_slot(const char *name, size_t len);

/* The node that serves slot: 0 (the URL's) until the cluster is on. */
int jc_rcluster_route(const struct jc_rcluster *c, unsigned slot);

/* 1 if err (an error reply's text) is a redirection, filled in r. */
int jc_rcluster_redirect(const char *err, struct jc_rcluster_redirect *r);

/* The index of the node at host:port, added if new; -1 if the table is full. */
int jc_rcluster_node(struct jc_rcluster *c, const char *host, int port);

/* Read a CLUSTER SLOTS answer into the map: each range's primary (an empty
 * host is the asked node's, asked_host).  The slots it covered, or -1 if
 * it is not such an answer (the map then left as it was). */
int jc_rcluster_load(struct jc_rcluster *c, const redisReply *rep, const char *asked_host);

#endif
