// SPDX-License-Identifier: MIT
/* redis_cluster.c — a Redis Cluster's slot map.  See redis_cluster.h. */
#include "tiers/redis_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0), Redis's key hash. */
static uint16_t crc16(const char *p, size_t n)
{
	uint16_t crc = 0;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)((uint8_t)p[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (uint16_t)(crc << 1 ^ 0x1021) : (uint16_t)(crc << 1);
	}
	return crc;
}

unsigned jc_rcluster_slot(const char *name, size_t len)
{
	const char *open = memchr(name, '{', len);
	if (open) {
		size_t from = (size_t)(open - name) + 1;
		const char *close = memchr(open + 1, '}', len - from);
		if (close && close > open + 1)
			return crc16(open + 1, (size_t)(close - open - 1)) % JC_RCLUSTER_SLOTS;
	}
	return crc16(name, len) % JC_RCLUSTER_SLOTS;
}

int jc_rcluster_route(const struct jc_rcluster *c, unsigned slot)
{
	if (!__atomic_load_n(&c->on, __ATOMIC_ACQUIRE) || slot >= JC_RCLUSTER_SLOTS)
		return 0;
	return __atomic_load_n(&c->slot[slot], __ATOMIC_ACQUIRE);
}

int jc_rcluster_redirect(const char *err, struct jc_rcluster_redirect *r)
{
	char host[JC_RCLUSTER_HOST];
	unsigned slot;
	int port, used = 0;
	int ask = strncmp(err, "ASK ", 4) == 0;
	if (!ask && strncmp(err, "MOVED ", 6) != 0)
		return 0;
	/* HOST:PORT, HOST an IPv6 address too: the port is after the last ':' */
	if (sscanf(err + (ask ? 4 : 6), "%u %255s%n", &slot, host, &used) != 2 ||
	    slot >= JC_RCLUSTER_SLOTS)
		return 0;
	char *colon = strrchr(host, ':');
	if (!colon || colon == host || sscanf(colon + 1, "%d", &port) != 1 || port <= 0 ||
	    port > 65535)
		return 0;
	*colon = '\0';
	*r = (struct jc_rcluster_redirect){ .slot = slot, .ask = ask, .port = port };
	snprintf(r->host, sizeof r->host, "%s", host);
	return 1;
}

int jc_rcluster_node(struct jc_rcluster *c, const char *host, int port)
{
	int n = __atomic_load_n(&c->reserved, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && i < JC_RCLUSTER_NODES; i++)
		if (__atomic_load_n(&c->node[i].ready, __ATOMIC_ACQUIRE) &&
		    c->node[i].port == port && strcmp(c->node[i].host, host) == 0)
			return i;
	if (strlen(host) >= JC_RCLUSTER_HOST)
		return -1;
	int i = __atomic_fetch_add(&c->reserved, 1, __ATOMIC_ACQ_REL);
	if (i >= JC_RCLUSTER_NODES)
		return -1;
	snprintf(c->node[i].host, sizeof c->node[i].host, "%s", host);
	c->node[i].port = port;
	__atomic_store_n(&c->node[i].ready, 1, __ATOMIC_RELEASE);
	return i;
}

/* One range of a CLUSTER SLOTS answer: {start, end, {host, port, ...}, ...}. */
static int load_range(struct jc_rcluster *c, const redisReply *e, const char *asked_host)
{
	if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
	    e->element[0]->type != REDIS_REPLY_INTEGER ||
	    e->element[1]->type != REDIS_REPLY_INTEGER || e->element[2]->type != REDIS_REPLY_ARRAY)
		return -1;
	long long from = e->element[0]->integer, to = e->element[1]->integer;
	const redisReply *p = e->element[2];
	if (from < 0 || to < from || to >= JC_RCLUSTER_SLOTS || p->elements < 2 ||
	    p->element[0]->type != REDIS_REPLY_STRING || p->element[1]->type != REDIS_REPLY_INTEGER)
		return -1;
	const char *host = p->element[0]->len ? p->element[0]->str : asked_host;
	if (strcmp(host, "?") == 0) /* an endpoint unknown to the node asked */
		return 0;
	int node = jc_rcluster_node(c, host, (int)p->element[1]->integer);
	if (node < 0)
		return 0;
	for (long long s = from; s <= to; s++)
		__atomic_store_n(&c->slot[s], (uint8_t)node, __ATOMIC_RELEASE);
	return (int)(to - from + 1);
}

int jc_rcluster_load(struct jc_rcluster *c, const redisReply *rep, const char *asked_host)
{
	if (rep->type != REDIS_REPLY_ARRAY)
		return -1;
	int covered = 0;
	for (size_t i = 0; i < rep->elements; i++) {
		int n = load_range(c, rep->element[i], asked_host);
		if (n < 0)
			return covered ? covered : -1;
		covered += n;
	}
	return covered;
}
