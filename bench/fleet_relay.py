#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/fleet_relay.py DELAY_MS LISTEN_HOST TARGET_HOST PORT... — a TCP relay
that adds latency, for bench/fleet.sh's nodes where the kernel has no
sch_netem (tc netem).

For each PORT it listens on LISTEN_HOST:PORT and relays every connection to
TARGET_HOST:PORT, holding each chunk it reads DELAY_MS milliseconds before
writing it on, in both directions and in order: a one-way delay of DELAY_MS
each way (a round trip of twice that), like netem's delay on both ends of a
link, without its jitter, loss or rate limit.  A connection's setup pays the
delay too: the relay accepts at once, connects after DELAY_MS, and the
server's first bytes come back DELAY_MS later.  Prints "ready" on stdout
once it listens; runs until killed."""
import asyncio
import sys


async def pump(reader, writer, delay):
    """Copy reader to writer, each chunk delay seconds late, then the EOF."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def read():
        while True:
            try:
                data = await reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            await queue.put((loop.time() + delay, data))
            if not data:
                return

    async def write():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
            except (ConnectionError, OSError):
                return

    await asyncio.gather(read(), write())


async def relay(client_reader, client_writer, target, port, delay):
    await asyncio.sleep(delay)
    try:
        server_reader, server_writer = await asyncio.open_connection(target, port)
    except OSError:
        client_writer.close()
        return
    try:
        await asyncio.gather(pump(client_reader, server_writer, delay),
                             pump(server_reader, client_writer, delay))
    finally:
        for w in (client_writer, server_writer):
            w.close()


async def main(args):
    delay = float(args[0]) / 1000
    listen, target = args[1], args[2]
    servers = []
    for port in map(int, args[3:]):
        servers.append(await asyncio.start_server(
            lambda r, w, p=port: relay(r, w, target, p, delay), listen, port))
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit("usage: fleet_relay.py DELAY_MS LISTEN_HOST TARGET_HOST PORT...")
    try:
        asyncio.run(main(sys.argv[1:]))
    except KeyboardInterrupt:
        pass
