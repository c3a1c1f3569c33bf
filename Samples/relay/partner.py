#!/usr/bin/env python3
"""A partner standing in for a relay destination (README.md, docs/guides/relay.md): prints each postback POSTed to
it, its Idempotency-Key first, and answers 204, as a measurement partner's endpoint takes a forwarded postback.

Usage: partner.py PORT [--once]
  --once   exit after the first postback (or after 60 s without one), as the README's example does
"""
import http.server
import sys


class Partner(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        print("Idempotency-Key:", self.headers.get("Idempotency-Key"), flush=True)
        print(body.decode("utf-8", "replace").rstrip("\n"), flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Partner)
if "--once" in sys.argv[2:]:
    server.timeout = 60
    server.handle_request()
else:
    server.serve_forever()
