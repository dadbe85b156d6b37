#!/usr/bin/env python3
# lockserver ADDR PORT LOCKFILE: an HTTP/1.0 server whose every request
# takes an exclusive flock on LOCKFILE before it answers: it waits as long
# as someone else holds the lock.
import fcntl, http.server, sys

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        with open(sys.argv[3], "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            fcntl.flock(f, fcntl.LOCK_UN)
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

http.server.HTTPServer((sys.argv[1], int(sys.argv[2])), Handler).serve_forever()
