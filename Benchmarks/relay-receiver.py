#!/usr/bin/env python3
"""A partner standing in for the relay benchmark: takes every POST with 204, counts requests and distinct
Idempotency-Keys, and answers GET /count with "REQUESTS DISTINCT" and GET /reset by starting again.

An asyncio Protocol that parses HTTP/1.1 by hand (keep-alive, Content-Length bodies only, as AsyncHTTPClient sends
them): the benchmark's cores are shared with the collector it measures, so the receiver must cost little.

Usage: relay-receiver.py PORT_FILE   (listens on a free loopback port and writes it to PORT_FILE)
"""
import asyncio
import sys

requests = 0
keys = set()


class Partner(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        global requests
        self.buffer += data
        replies = []
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                break
            head = self.buffer[:end].split(b"\r\n")
            length, key = 0, None
            for line in head[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"idempotency-key":
                    key = value.strip()
            if len(self.buffer) < end + 4 + length:
                break
            self.buffer = self.buffer[end + 4 + length:]
            method, target = head[0].split(b" ")[:2]
            if method == b"GET" and target == b"/count":
                body = f"{requests} {len(keys)}\n".encode()
                replies.append(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            elif method == b"GET" and target == b"/reset":
                requests = 0
                keys.clear()
                replies.append(b"HTTP/1.1 204 No Content\r\n\r\n")
            else:
                requests += 1
                if key is not None:
                    keys.add(key)
                replies.append(b"HTTP/1.1 204 No Content\r\n\r\n")
        if replies:
            self.transport.write(b"".join(replies))


async def main(port_file):
    server = await asyncio.get_running_loop().create_server(Partner, "127.0.0.1", 0)
    with open(port_file, "w") as f:
        f.write(f"{server.sockets[0].getsockname()[1]}\n")
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
