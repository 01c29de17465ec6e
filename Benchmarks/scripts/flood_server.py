#!/usr/bin/env python3
"""A hostile server for `runtime-bench flood`: sends events as fast as the socket takes them.

WebSocket (AppSync Events): answers the upgrade choosing `aws-appsync-event-ws`, acknowledges the
connection and every subscribe, then floods `data` frames: for the first subscription (`stalled`:
a consumer that never reads), for an id nobody subscribed to (`unsubscribed`), or for the first
subscription with `event` an array of 1 000 tiny events per frame (`array`) or of as many valid
events as a 2 MiB frame holds (`valid-array`, 13 000), or one valid event of 1 MB per frame
(`large`: its `thingName` is a megabyte, so the decoded event holds it too); or stops reading (`unread`: the client
publishes into a socket nobody reads).
SSE (Mercure): answers the GET with an event stream flooding events of the first requested topic
(`stalled`) or of another topic (`unsubscribed`).

Prints `port <n>` once listening on 127.0.0.1; serves one client; stops after --seconds.
Standard library only.
"""
import argparse
import base64
import hashlib
import json
import socket
import struct
import sys
import time
import urllib.parse

PAYLOAD = ('{"eventType":"device/presenceChanged","timestamp":"2025-01-26T12:00:00.123Z",'
           '"deviceId":"d-1","thingName":"cam-%d","online":true}')


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the request head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def ws_frame(text):
    payload = text.encode()
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x81, n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x81, 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 127, n)
    return header + payload


def ws_read_messages(conn, buffer):
    """Reads client frames (masked) until at least one text message is complete."""
    messages = []
    while not messages:
        while len(buffer) >= 2:
            length = buffer[1] & 0x7F
            offset = 2
            if length == 126:
                if len(buffer) < 4:
                    break
                length = struct.unpack("!H", buffer[2:4])[0]
                offset = 4
            elif length == 127:
                if len(buffer) < 10:
                    break
                length = struct.unpack("!Q", buffer[2:10])[0]
                offset = 10
            if len(buffer) < offset + 4 + length:
                break
            mask = buffer[offset:offset + 4]
            body = bytes(b ^ mask[i % 4] for i, b in enumerate(buffer[offset + 4:offset + 4 + length]))
            if buffer[0] & 0x0F == 0x1:
                messages.append(body.decode())
            buffer = buffer[offset + 4 + length:]
        if not messages:
            chunk = conn.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            buffer += chunk
    return messages, buffer


def flood_websocket(conn, mode, deadline):
    head, rest = read_head(conn)
    key = next(line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.lower().startswith("sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: aws-appsync-event-ws\r\n\r\n").encode())
    buffer = rest
    subscription = None
    while subscription is None:
        messages, buffer = ws_read_messages(conn, buffer)
        for text in messages:
            message = json.loads(text)
            if message.get("type") == "connection_init":
                conn.sendall(ws_frame('{"type":"connection_ack","connectionTimeoutMs":300000}'))
            elif message.get("type") == "subscribe":
                subscription = message["id"]
                conn.sendall(ws_frame('{"type":"subscribe_success","id":"%s"}' % subscription))
    if mode == "unread":
        while time.monotonic() < deadline:
            time.sleep(0.1)
        return 0
    target = "nobody" if mode == "unsubscribed" else subscription
    if mode == "array":
        batch = b"".join(ws_frame(json.dumps({"type": "data", "id": target, "event": ["{}"] * 1000})) for _ in range(20))
    elif mode == "large":
        big = PAYLOAD.replace("cam-%d", "x" * 1_000_000)
        batch = b"".join(ws_frame(json.dumps({"type": "data", "id": target, "event": big})) for _ in range(4))
    elif mode == "valid-array":
        batch = ws_frame(json.dumps({"type": "data", "id": target, "event": [PAYLOAD % n for n in range(13000)]}))
    else:
        batch = b"".join(ws_frame(json.dumps({"type": "data", "id": target, "event": PAYLOAD % n})) for n in range(200))
    conn.setblocking(True)
    sent = 0
    while time.monotonic() < deadline:
        conn.sendall(batch)
        sent += len(batch)
    return sent


def flood_sse(conn, mode, deadline):
    head, _ = read_head(conn)
    target = urllib.parse.urlsplit(head.split(" ")[1])
    topics = [value for name, value in urllib.parse.parse_qsl(target.query) if name == "topic"]
    topic = topics[0] if mode == "stalled" and topics else "/nobody/listens"
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")
    batch = "".join("id: %d\nevent: %s\ndata: %s\n\n" % (n, topic, PAYLOAD % n) for n in range(200)).encode()
    sent = 0
    while time.monotonic() < deadline:
        conn.sendall(batch)
        sent += len(batch)
    return sent


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["websocket", "sse"], required=True)
    parser.add_argument("--mode", choices=["stalled", "unsubscribed", "array", "valid-array", "large", "unread"], required=True)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(30)
    print("port %d" % server.getsockname()[1], flush=True)
    conn, _ = server.accept()
    conn.settimeout(args.seconds + 30)
    deadline = time.monotonic() + args.seconds
    try:
        flood = flood_websocket if args.transport == "websocket" else flood_sse
        sent = flood(conn, args.mode, deadline)
        print("sent %d bytes" % sent, flush=True)
    except (ConnectionError, OSError, socket.timeout) as error:
        print("ended: %s" % error, file=sys.stderr, flush=True)
    finally:
        conn.close()
        server.close()


if __name__ == "__main__":
    main()
