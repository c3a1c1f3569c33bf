"""Issue 32's front-door cases for Benchmarks/faults.py, against every listener of every long-running command:

  slowreaders  SLOW_READERS clients per listener (SO_RCVBUF 4 KiB) pipelining requests as fast as the server reads
               and never reading a reply, for up to SLOW_READER_SECONDS: RSS before, at its peak and after they
               left; how long each connection lived against --write-timeout (READER_WRITE_TIMEOUT).
  starvation   under `prlimit --nofile=N:N` for N in STARVE_LIMITS (256,1024): one listener flooded with idle
               connections (N + 100 of them), then PROBES /healthz probes (and a postback or an impression where
               the listener takes one) on each other listener of the process, with the server's CPU while flooded.

Listeners: `skan serve` device port, admin port and --dashboard-port; `skan signer` private and --public-port;
`skan dashboard`. Loopback only; every loop is bounded in count and time.
"""
import os, re, shutil, signal, socket, stat, subprocess, threading, time

HOST = "127.0.0.1"


def env(name, default, kind=int):
    value = os.environ.get(name)
    return default if value in (None, "") else kind(value)


SLOW_READERS = env("SLOW_READERS", 50)
SLOW_READER_SECONDS = env("SLOW_READER_SECONDS", 20.0, float)
READER_WRITE_TIMEOUT = env("READER_WRITE_TIMEOUT", 3.0, float)
READER_SLACK = env("READER_SLACK", 2.0, float)
RSS_AFTER_LIMIT_MB = env("RSS_AFTER_LIMIT_MB", 100)
STARVE_LIMITS = [int(n) for n in os.environ.get("STARVE_LIMITS", "256,1024").split(",") if n]
PROBES = env("PROBES", 3)
PROBE_TIMEOUT = env("PROBE_TIMEOUT", 3.0, float)
STARVE_CPU_LIMIT = env("STARVE_CPU_LIMIT", 0.2, float)


class Proc:
    """One long-running `skan` command; `ports` maps a listener's name to the port read from its start-up lines."""

    PATTERNS = {
        "device": r"skan serve: listening on http://127\.0\.0\.1:(\d+)",
        "admin": r"skan serve: admin on http://127\.0\.0\.1:(\d+)",
        "serve-dashboard": r"skan serve: dashboard on http://127\.0\.0\.1:(\d+)",
        "signer": r"skan signer: listening on http://127\.0\.0\.1:(\d+)",
        "public": r"web-ad payloads for Safari on http://127\.0\.0\.1:(\d+)",
        "dashboard": r"skan dashboard: http://127\.0\.0\.1:(\d+)",
    }

    def __init__(self, folder, name, command, expect, prlimit=None):
        self.name = name
        self.out = open(os.path.join(folder, f"{name}.out"), "w+")
        self.err = open(os.path.join(folder, f"{name}.err"), "w+")
        if prlimit:
            command = ["prlimit", f"--nofile={prlimit}:{prlimit}", "--", *command]
        self.process = subprocess.Popen(command, stdout=self.out, stderr=self.err, cwd=folder)
        self.pid = self.process.pid
        self.ports = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.process.poll() is None and len(self.ports) < len(expect):
            text = open(self.out.name).read()
            for key in expect:
                match = re.search(self.PATTERNS[key], text)
                if match:
                    self.ports[key] = int(match.group(1))
            time.sleep(0.05)
        if len(self.ports) < len(expect):
            self.stop()
            raise RuntimeError(f"{name} did not start: {open(self.err.name).read()[-1500:]}")
        time.sleep(0.3)

    def rss_mb(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
        return 0

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_text(self):
        return open(self.out.name).read() + open(self.err.name).read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        return self.process.returncode


def start(kind, folder, root, binary, args=(), prlimit=None, name=None):
    """`serve` (device, admin, its dashboard), `signer` (private, public) or `dashboard`, on free loopback ports."""
    name = name or kind
    if kind == "serve":
        command = [binary, "serve", "--db", os.path.join(folder, f"{name}.sqlite"), "--host", HOST, "--port", "0", "--rate-limit", "0",
                   "--dashboard-port", "0", "--apple-key-p256",
                   os.path.join(root, "Keys/test/simulated-apple-p256-public-key.pem"), *args]
        return Proc(folder, name, command, ["device", "admin", "serve-dashboard"], prlimit)
    if kind == "signer":
        key = os.path.join(folder, "signer-key.pem")
        if not os.path.exists(key):
            shutil.copy(os.path.join(root, "Keys/test/ad-network-private-key.pem"), key)
            os.chmod(key, stat.S_IRUSR | stat.S_IWUSR)
        command = [binary, "signer", "--key", f"example.skadnetwork={key}", "--host", HOST, "--port", "0",
                   "--public-host", HOST, "--public-port", "0", *args]
        return Proc(folder, name, command, ["signer", "public"], prlimit)
    db = os.path.join(folder, "dashboard.sqlite")
    if not os.path.exists(db):  # a migrated, empty database: a collector started and stopped once
        Proc(folder, "dashboard-db", [binary, "serve", "--db", db, "--host", HOST, "--port", "0", "--apple-key-p256",
                                      os.path.join(root, "Keys/test/simulated-apple-p256-public-key.pem")],
             ["device", "admin"]).stop()
    command = [binary, "dashboard", "--db", db, "--host", HOST, "--port", "0", *args]
    return Proc(folder, name, command, ["dashboard"], prlimit)


# What each listener is asked, and where a slow reader pipelines: a route every listener answers, and the one
# answered on the event loop where the listener has such a path.
PROBE = f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
PAGE = f"GET / HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()  # the dashboard has no /healthz: its overview
PROBE_FOR = {"serve-dashboard": PAGE, "dashboard": PAGE}
PIPELINED = {
    "device": (f"POST /postbacks HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: text/plain\r\n"
               f"Content-Length: 0\r\n\r\n").encode(),
    "signer": (f"POST /v1/impressions HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
               f"Content-Length: 2\r\n\r\n{{}}").encode(),
}
LISTENERS = [("serve", "device"), ("serve", "admin"), ("serve", "serve-dashboard"), ("signer", "signer"),
             ("signer", "public"), ("dashboard", "dashboard")]


def slow_reader(port, request, seconds, results):
    """Pipelines `request` without reading until the server closes the connection or `seconds` pass."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        sock.connect((HOST, port))
    except OSError as error:
        results.append(("connect", type(error).__name__, 0))
        return
    sock.settimeout(0.05)
    batch = request * 64
    opened, sent = time.monotonic(), 0
    while time.monotonic() - opened < seconds:
        try:
            # From where the last send stopped: a request cut in two and begun again would be a malformed one.
            offset = sent % len(batch)
            sent += sock.send(batch[offset:])
        except socket.timeout:
            continue
        except OSError:
            results.append(("closed", time.monotonic() - opened, sent // len(request)))
            sock.close()
            return
    results.append(("open", time.monotonic() - opened, sent // len(request)))
    sock.close()


def case_slow_readers(folder, root, binary, report, log):
    log(f"\n[slow readers] {SLOW_READERS} clients per listener pipelining without reading (SO_RCVBUF 4 KiB), "
        f"--write-timeout {READER_WRITE_TIMEOUT:g}, idle and request timeouts 30 s")
    args = ["--write-timeout", str(READER_WRITE_TIMEOUT), "--log-level", "warning"]
    for kind, listener in LISTENERS:
        proc = start(kind, folder, root, binary, args, name=f"readers-{listener}")
        try:
            port = proc.ports[listener]
            before = proc.rss_mb()
            results, threads = [], []
            for _ in range(SLOW_READERS):
                thread = threading.Thread(target=slow_reader, args=(
                    port, PIPELINED.get(listener, PROBE), SLOW_READER_SECONDS, results))
                thread.start()
                threads.append(thread)
            peak = before
            while any(t.is_alive() for t in threads):
                peak = max(peak, proc.rss_mb())
                time.sleep(0.1)
            time.sleep(1.0)
            after = proc.rss_mb()
            closed = [r for r in results if r[0] == "closed"]
            lived = [r[1] for r in closed]
            sent = sum(r[2] for r in results)
            status = _status(port, PROBE_FOR.get(listener, PROBE))
            figures = (f"{listener}: closed {len(closed)}/{SLOW_READERS} (longest lived {max(lived, default=0):.2f} s, "
                       f"median {sorted(lived)[len(lived) // 2] if lived else 0:.2f} s; limit "
                       f"{READER_WRITE_TIMEOUT + READER_SLACK:g} s); requests sent {sent:,}; RSS before {before} MB, "
                       f"peak {peak} MB, after {after} MB; /healthz after {status}")
            held = (len(closed) == SLOW_READERS and max(lived, default=99) <= READER_WRITE_TIMEOUT + READER_SLACK
                    and after < RSS_AFTER_LIMIT_MB and status is not None)
            report(f"slow readers ({listener})", held, figures)
        finally:
            proc.stop()


def _status(port, request=PROBE, timeout=PROBE_TIMEOUT):
    """The status of one request on a fresh connection, or None when nothing came within `timeout`."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(request)
            sock.settimeout(timeout)
            data = b""
            deadline = time.monotonic() + timeout
            while b"\r\n" not in data and time.monotonic() < deadline:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
            return int(data.split()[1]) if data.startswith(b"HTTP/1.1 ") else None
    except (OSError, ValueError, IndexError):
        return None


def case_starvation(folder, root, binary, report, log, postbacks=None):
    for limit in STARVE_LIMITS:
        idle = limit + 100
        log(f"\n[starvation] prlimit --nofile={limit}:{limit}: {idle} idle connections on one listener, "
            f"{PROBES} probes on each other listener of the process")
        for kind, flooded in LISTENERS:
            proc = start(kind, folder, root, binary, ["--log-level", "warning"], prlimit=limit,
                         name=f"starve-{limit}-{flooded}")
            sockets = []
            try:
                for _ in range(idle):
                    try:
                        sockets.append(socket.create_connection((HOST, proc.ports[flooded]), timeout=2))
                    except OSError:
                        break
                connected = len(sockets)
                time.sleep(1.0)
                cpu = proc.cpu_seconds()
                time.sleep(2.0)
                busy = (proc.cpu_seconds() - cpu) / 2.0
                answers = {}
                for other, port in proc.ports.items():
                    if other == flooded:
                        continue
                    requests = [PROBE_FOR.get(other, PROBE)]
                    if other == "device" and postbacks is not None:
                        requests.append(post(postbacks.take()))
                    if other == "signer":
                        requests.append(IMPRESSION)
                    answers[other] = [_status(port, requests[i % len(requests)]) for i in range(PROBES)]
                text = proc.log_text()
                logged = text.count("connection budget reached")
                for sock in sockets:
                    sock.close()
                sockets = []
                released = time.monotonic()
                recovered = _status(proc.ports[flooded], PROBE_FOR.get(flooded, PROBE), timeout=10)
                figures = (f"{kind} with {flooded} flooded: connected {connected}/{idle}; CPU while flooded "
                           f"{busy:.1%} of a core; probes {answers}; 'budget reached' lines {logged}; the flooded "
                           f"listener once they left: {recovered} in {(time.monotonic() - released) * 1000:.0f} ms")
                held = (busy < STARVE_CPU_LIMIT and all(s in (200,) for statuses in answers.values() for s in statuses)
                        and logged >= 1 and recovered == 200)
                report(f"starvation at {limit} ({kind}: {flooded} flooded)", held, figures)
            finally:
                for sock in sockets:
                    sock.close()
                proc.stop()


IMPRESSION = (lambda body: (f"POST /v1/impressions HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                            f"Content-Length: {len(body)}\r\n\r\n").encode() + body)(
    b'{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":3120,'
    b'"itunes-item-id":525463029,"source-app-id":1234567891,"fidelity-type":1}')


def post(body):
    return (f"POST /postbacks HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
