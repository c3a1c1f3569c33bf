#!/usr/bin/env python3
"""Load-and-fault cases of issue 18 against a release `skan serve`, each reported as held or FAILED with figures.

Run through Benchmarks/faults.sh (which builds the release binary). Standard library only. The script starts its
own servers on free loopback ports in a temporary folder and sends traffic to 127.0.0.1 only; every loop is bounded
in count and in time.

Cases (CASES=slow,descriptors,leaks,acks,flood selects some):
  slow         2,000 slow clients (a partial head, one byte every few seconds; reconnecting when closed) for
               SLOW_SECONDS, a probe postback on a fresh connection every PROBE_INTERVAL s: probe p50/p99, peak RSS,
               the longest a slow connection lived, and how long after the last one opened all were closed.
  descriptors  the server under `prlimit --nofile=256:256`, 300 idle connections: /healthz and a postback while
               they are held, CPU while saturated, then the time until /healthz and a postback answer once they go.
  leaks        100 clients whose head is over 80 KiB (parser error) followed by 1 MiB more, 20 clients POSTing a
               10 MB body (413); the server's sockets once the timeout passed with clients holding on, and after
               they left. Both postback paths.
  acks         N valid postbacks each followed by a half-close, N followed on the same connection by a malformed
               request: 200 replies received against rows stored. Both postback paths.
  flood        FLOOD_SECONDS of 64,000-byte bodies that are refused (a 60,000-character version): database growth
               every 10 s and bytes per kept refusal against 5 KB and RejectionCap's maximumRowBytes (4,928).
  slowreaders  issue 32: clients that pipeline and never read, against every listener of serve, signer and dashboard
  starvation   issue 32: at 256 and 1,024 descriptors, one listener flooded with idle sockets, the others probed
               (both in Benchmarks/faults_listeners.py, which documents their settings)
  truncate     issue 32: the database truncated under load; walremove: its -wal removed under load, then SIGKILL
               (both in Benchmarks/faults_store.py)
  pgduplicates issue 32: two PostgreSQL collectors given the same postbacks in opposite orders, PG_RUNS runs: no
               503 and no deadlock (Benchmarks/faults_postgres.py; starts a throwaway cluster)
  csv          issue 32: postbacks, refusals, a conflict and campaign names beginning with = + - @, then every CSV
               written from them (export, --rejected, --conflicts, report, campaigns list, both dashboards'
               /report.csv): no formula cell (Benchmarks/faults_csv.py)
"""
import asyncio, collections, json, multiprocessing, os, random, re, resource, signal, socket, sqlite3, statistics
import subprocess, sys, tempfile, threading, time
from concurrent.futures import ThreadPoolExecutor

import faults_csv
import faults_listeners
import faults_postgres
import faults_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"  # loopback only, always


def env(name, default, kind=int):
    value = os.environ.get(name)
    return default if value in (None, "") else kind(value)


BIN = os.environ.get("SKAN_BIN") or os.path.join(ROOT, ".build/release/skan")
CASES = [c.strip() for c in os.environ.get("CASES", "slow,descriptors,leaks,acks,flood,slowreaders,starvation,truncate,walremove,pgduplicates,csv").split(",")
         if c.strip()]
SLOW_CONNECTIONS = env("SLOW_CONNECTIONS", 2000)
SLOW_SECONDS = env("SLOW_SECONDS", 30)
SLOW_BYTE_INTERVAL = env("SLOW_BYTE_INTERVAL", 2.0, float)
SLOW_IDLE_TIMEOUT = env("SLOW_IDLE_TIMEOUT", 5.0, float)
PROBE_INTERVAL = env("PROBE_INTERVAL", 1.0, float)
PROBE_LIMIT_MS = env("PROBE_LIMIT_MS", 50.0, float)
CLOSE_SLACK = env("CLOSE_SLACK", 1.5, float)
FD_LIMIT = env("FD_LIMIT", 256)
IDLE_CONNECTIONS = env("IDLE_CONNECTIONS", 300)
RECOVERY_LIMIT = env("RECOVERY_LIMIT", 1.0, float)
CPU_LIMIT = env("CPU_LIMIT", 0.20, float)
LEAK_HEADER_CLIENTS = env("LEAK_HEADER_CLIENTS", 100)
LEAK_BODY_CLIENTS = env("LEAK_BODY_CLIENTS", 20)
LEAK_TIMEOUT = env("LEAK_TIMEOUT", 5.0, float)
ACK_COUNT = env("ACK_COUNT", 200)
FLOOD_SECONDS = env("FLOOD_SECONDS", 60)
FLOOD_CONNECTIONS = env("FLOOD_CONNECTIONS", 8)
FLOOD_BODY_BYTES = env("FLOOD_BODY_BYTES", 64000)
ROW_LIMIT = env("ROW_LIMIT", 5120)  # "≤ 5 KB per refused row"
STATED_ROW_BYTES = 4096 + 5 * 96 + 256 + 96  # RejectionCap.maximumRowBytes with its defaults: 4,928

RESULTS = []


def log(message):
    print(message, flush=True)


def report(case, held, figures):
    RESULTS.append((case, held, figures))
    log(f"  => {case}: {'held' if held else 'FAILED'}  {figures}")


# MARK: the server

class Server:
    """One `skan serve` on a free loopback port, its database in `folder`."""

    def __init__(self, folder, name, args=(), prlimit=None):
        self.folder, self.name = folder, name
        self.db = os.path.join(folder, f"{name}.sqlite")
        self.out = open(os.path.join(folder, f"{name}.out"), "w+")
        self.err = open(os.path.join(folder, f"{name}.err"), "w+")
        # --rate-limit 0: these cases are one client address each, which the default per-address limit would refuse.
        command = [BIN, "serve", "--db", self.db, "--host", HOST, "--port", "0", "--rate-limit", "0",
                   "--apple-key-p256", os.path.join(ROOT, "Keys/test/simulated-apple-p256-public-key.pem"), *args]
        if prlimit:
            command = ["prlimit", f"--nofile={prlimit}:{prlimit}", "--", *command]
        self.process = subprocess.Popen(command, stdout=self.out, stderr=self.err, cwd=folder)
        self.pid = self.process.pid  # prlimit execs the server: the same pid
        deadline = time.monotonic() + 30
        self.port = None
        while time.monotonic() < deadline and self.process.poll() is None:
            with open(self.out.name) as f:
                text = f.read()
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", text)
            admin = re.search(r"admin on http://127\.0\.0\.1:(\d+)", text)  # /stats is on the admin port
            if match and admin:
                self.port, self.admin_port = int(match.group(1)), int(admin.group(1))
                break
            time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError(f"{name}: the server did not start: {open(self.err.name).read()[-2000:]}")
        time.sleep(0.2)
        self.baseline_sockets = self.sockets()

    def rss_kb(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def sockets(self):
        """Sockets among the server's descriptors (the listener included)."""
        count = 0
        for fd in os.listdir(f"/proc/{self.pid}/fd"):
            try:
                if os.readlink(f"/proc/{self.pid}/fd/{fd}").startswith("socket:"):
                    count += 1
            except OSError:
                pass
        return count

    def descriptors(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def tcp_states(self):
        """The kernel's TCP sockets on the server's port other than the listener, orphans included, by state."""
        lines = subprocess.run(["ss", "-Htan", "state", "all", f"( sport = :{self.port} )"],
                               capture_output=True, text=True).stdout.splitlines()
        states = collections.Counter(line.split()[0] for line in lines if line.strip())
        states.pop("LISTEN", None)
        return dict(states)

    def log_text(self):
        with open(self.out.name) as f, open(self.err.name) as g:
            return f.read() + g.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        return self.process.returncode

    def rows(self, rejected=False):
        """Rows in the stopped server's database, through `skan export`."""
        command = [BIN, "export", "--db", self.db, "--format", "jsonl"] + (["--rejected"] if rejected else [])
        out = subprocess.run(command, capture_output=True, check=True).stdout
        return out.count(b"\n")


# MARK: HTTP on plain sockets

def parse_responses(data):
    """The status codes of the whole responses in `data` (Content-Length framed), and the bytes left over."""
    statuses = []
    while True:
        end = data.find(b"\r\n\r\n")
        if end < 0:
            break
        head = data[:end].decode("latin-1")
        lines = head.split("\r\n")
        try:
            status = int(lines[0].split()[1])
        except (IndexError, ValueError):
            break
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(data) < end + 4 + length:
            break
        statuses.append(status)
        data = data[end + 4 + length:]
    return statuses, data


def read_until_closed(sock, timeout):
    """Everything the server sends until it closes or `timeout` passes; `reset` when it ends in a reset."""
    sock.settimeout(timeout)
    data, reset = b"", False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            reset = True
            break
        if not chunk:
            break
        data += chunk
    return data, reset


def read_responses(sock, count, timeout):
    """Reads until `count` whole responses arrived, the server closed, or `timeout` passed."""
    deadline = time.monotonic() + timeout
    data = b""
    while time.monotonic() < deadline:
        statuses, _ = parse_responses(data)
        if len(statuses) >= count:
            return statuses
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    return parse_responses(data)[0]


def post_bytes(path, body, extra=b""):
    return (f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body + extra


def request(port, raw, timeout=5.0):
    """One request on a fresh connection: (status or None, seconds from connect to the whole reply)."""
    start = time.monotonic()
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(raw)
            statuses = read_responses(sock, 1, max(0.01, timeout - (time.monotonic() - start)))
    except OSError:
        return None, time.monotonic() - start
    return (statuses[0] if statuses else None), time.monotonic() - start


def healthz(port, timeout=5.0):
    return request(port, f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode(), timeout)


def stats(port):
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(f"GET /stats HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
        data, _ = read_until_closed(sock, 10)
    return json.loads(data.split(b"\r\n\r\n", 1)[1])


class Postbacks:
    """Distinct valid postbacks signed by the simulated Apple key (Benchmarks/make-postbacks.py), each used once."""

    def __init__(self, folder, count):
        path = os.path.join(folder, "postbacks.jsonl")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks/make-postbacks.py"), str(count),
                        os.path.join(ROOT, "Keys/test/simulated-apple-p256-private-key.pem"), path], check=True)
        with open(path, "rb") as f:
            self.bodies = [line.rstrip(b"\n") for line in f if line.strip()]
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            return self.bodies.pop()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else float("nan")


def wait_for(predicate, timeout, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


# MARK: case 1, slow clients

def slow_clients_worker(port, count, seconds, interval, idle_timeout, open_now, results):
    """In its own process (so that the probes' timing does not share this loop's GIL): `count` clients each sending
    a partial head one byte per `interval`, reconnecting when the server closes them, for `seconds`."""
    lifetimes, failures, never_closed, replies = [], collections.Counter(), [0], collections.Counter()
    give_up = idle_timeout * 4 + 10  # a connection the server keeps past this counts as never closed
    head = b"POST /postbacks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 200000

    async def client(stop_at):
        await asyncio.sleep(random.random() * interval)
        while time.monotonic() < stop_at:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 10)
            except (OSError, asyncio.TimeoutError) as error:
                failures[type(error).__name__] += 1
                await asyncio.sleep(1)
                continue
            opened = time.monotonic()
            with open_now.get_lock():
                open_now.value += 1
            sent = 0
            closed = False
            while not closed and time.monotonic() - opened < give_up:
                try:
                    writer.write(head[sent:sent + 1])
                    sent += 1
                    await writer.drain()
                    data = await asyncio.wait_for(reader.read(65536), timeout=interval)
                    if data:
                        statuses = parse_responses(data)[0]
                        replies[statuses[0] if statuses else "partial"] += 1
                    else:
                        closed = True
                except asyncio.TimeoutError:
                    pass
                except OSError:
                    closed = True
            if closed:
                lifetimes.append(time.monotonic() - opened)
            else:
                never_closed[0] += 1
            writer.close()
            with open_now.get_lock():
                open_now.value -= 1

    async def main():
        started = time.monotonic()
        stop_at = started + seconds
        tasks = []
        for i in range(count):  # 100 connections every 50 ms: a burst of 2,000 SYNs overflows the backlog
            tasks.append(asyncio.ensure_future(client(stop_at)))
            if i % 100 == 99:
                await asyncio.sleep(0.05)
        await asyncio.gather(*tasks)
        return time.monotonic() - stop_at

    drained = asyncio.run(main())
    results.put({"lifetimes": lifetimes, "failures": dict(failures), "never_closed": never_closed[0],
                 "replies": dict(replies), "drained_after_stop": drained})


def case_slow(folder, postbacks):
    log(f"\n[slow] {SLOW_CONNECTIONS} slow clients for {SLOW_SECONDS} s, a byte every {SLOW_BYTE_INTERVAL} s, "
        f"--idle-timeout {SLOW_IDLE_TIMEOUT:g}, a probe postback every {PROBE_INTERVAL} s")
    server = Server(folder, "slow", ["--idle-timeout", str(SLOW_IDLE_TIMEOUT), "--request-timeout",
                                     str(SLOW_IDLE_TIMEOUT), "--log-level", "warning"])
    try:
        rss_start = server.rss_kb()
        processes = multiprocessing.get_context("fork")
        open_now = processes.Value("i", 0)
        results = processes.Queue()
        worker = processes.Process(target=slow_clients_worker, args=(
            server.port, SLOW_CONNECTIONS, SLOW_SECONDS, SLOW_BYTE_INTERVAL, SLOW_IDLE_TIMEOUT, open_now, results))
        worker.start()
        probes, probe_statuses, rss_peak, sockets_peak, open_peak = [], collections.Counter(), rss_start, 0, 0
        deadline = time.monotonic() + SLOW_SECONDS + SLOW_IDLE_TIMEOUT * 4 + 30
        next_probe = time.monotonic() + 2  # once the first connections are in
        while worker.is_alive() and time.monotonic() < deadline:
            rss_peak = max(rss_peak, server.rss_kb())
            sockets_peak = max(sockets_peak, server.sockets() - server.baseline_sockets)
            open_peak = max(open_peak, open_now.value)
            if time.monotonic() >= next_probe and open_now.value > 0:
                status, seconds = request(server.port, post_bytes("/postbacks", postbacks.take()))
                probes.append(seconds * 1000)
                probe_statuses[status] += 1
                next_probe += PROBE_INTERVAL
            time.sleep(0.1)
        outcome = results.get(timeout=30)
        worker.join(timeout=10)
        time.sleep(0.5)
        left = server.sockets() - server.baseline_sockets
        rss_end = server.rss_kb()
        lifetimes = outcome["lifetimes"]
        longest = max(lifetimes) if lifetimes else float("nan")
        p50, p99 = percentile(probes, 0.5), percentile(probes, 0.99)
        figures = (f"slow connections opened {len(lifetimes) + outcome['never_closed']} (at most {open_peak} open at "
                   f"once, server held at most {sockets_peak}); longest lived {longest:.2f} s (limit "
                   f"{SLOW_IDLE_TIMEOUT + CLOSE_SLACK:g}); never closed {outcome['never_closed']}; all closed "
                   f"{outcome['drained_after_stop']:.2f} s after the last could open; connect failures "
                   f"{outcome['failures'] or 0}; replies to slow clients {outcome['replies'] or 'none'}; probes "
                   f"{len(probes)} {dict(probe_statuses)} p50 {p50:.1f} ms p99 {p99:.1f} ms max {max(probes, default=float('nan')):.1f} ms; "
                   f"RSS start {rss_start // 1024} MB, peak {rss_peak // 1024} MB, end {rss_end // 1024} MB; "
                   f"server sockets left {left}")
        held = (outcome["never_closed"] == 0 and longest <= SLOW_IDLE_TIMEOUT + CLOSE_SLACK and p99 < PROBE_LIMIT_MS
                and set(probe_statuses) == {200} and left == 0 and len(probes) > 0)
        report("slow clients", held, figures)
    finally:
        server.stop()


# MARK: case 2, descriptor exhaustion

def case_descriptors(folder, postbacks):
    log(f"\n[descriptors] prlimit --nofile={FD_LIMIT}:{FD_LIMIT}, {IDLE_CONNECTIONS} idle connections")
    server = Server(folder, "descriptors", ["--idle-timeout", "120"], prlimit=FD_LIMIT)
    idle, pending = [], []
    try:
        limit_line = next((line for line in server.log_text().splitlines() if "descriptor limit" in line), "")
        connect_failures = 0
        for _ in range(IDLE_CONNECTIONS):
            try:
                idle.append(socket.create_connection((HOST, server.port), timeout=3))
            except OSError:
                connect_failures += 1
        connected = len(idle)
        time.sleep(1.0)
        held_sockets = server.sockets() - server.baseline_sockets
        descriptors = server.descriptors()
        cpu_before = server.cpu_seconds()
        time.sleep(3.0)
        cpu_saturated = (server.cpu_seconds() - cpu_before) / 3.0
        # While they are held: a /healthz and a postback, each on a fresh connection (it may wait in the backlog).
        waiting = {}
        for name, raw in (("healthz", f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()),
                          ("postback", post_bytes("/postbacks", postbacks.take()))):
            sock = socket.create_connection((HOST, server.port), timeout=3)
            sock.sendall(raw)
            statuses = read_responses(sock, 1, 2.0)
            waiting[name] = statuses[0] if statuses else "waiting (not yet accepted)"
            if not statuses:
                pending.append((name, sock))
            else:
                sock.close()
        cpu_before = server.cpu_seconds()
        time.sleep(2.0)
        cpu_saturated = max(cpu_saturated, (server.cpu_seconds() - cpu_before) / 2.0)
        # The idle connections go; from then on, how long until a fresh /healthz and a fresh postback answer.
        released = time.monotonic()
        for sock in idle:
            sock.close()
        idle = []
        recovered = {}
        with ThreadPoolExecutor(4) as pool:
            fresh_healthz = pool.submit(healthz, server.port, 5.0)
            fresh_postback = pool.submit(request, server.port, post_bytes("/postbacks", postbacks.take()), 5.0)

            def finish(name, sock):
                statuses = read_responses(sock, 1, 5.0)
                sock.close()
                return (statuses[0] if statuses else None), time.monotonic() - released
            late = [pool.submit(finish, name, sock) for name, sock in pending]
            status, _ = fresh_healthz.result()
            recovered["healthz"] = (status, time.monotonic() - released)
            status, _ = fresh_postback.result()
            recovered["postback"] = (status, time.monotonic() - released)
            late_results = {name: future.result() for (name, _), future in zip(pending, late)}
        pending = []
        cpu_before = server.cpu_seconds()
        time.sleep(2.0)
        cpu_after = (server.cpu_seconds() - cpu_before) / 2.0
        alive = server.process.poll() is None
        figures = (f"log: {limit_line.strip()[-160:]!s}; connected {connected}"
                   f"/{IDLE_CONNECTIONS} (failures {connect_failures}), server held {held_sockets} connections, "
                   f"{descriptors} descriptors of {FD_LIMIT}; server CPU while saturated {cpu_saturated:.1%} of a core;"
                   f" while held: {waiting}; after release: fresh /healthz {recovered['healthz'][0]} in "
                   f"{recovered['healthz'][1] * 1000:.0f} ms, fresh postback {recovered['postback'][0]} in "
                   f"{recovered['postback'][1] * 1000:.0f} ms, the waiting ones "
                   f"{ {k: (v[0], f'{v[1] * 1000:.0f} ms') for k, v in late_results.items()} }; "
                   f"CPU after {cpu_after:.1%}; server alive {alive}")
        held = (alive and cpu_saturated < CPU_LIMIT and recovered["healthz"][0] == 200
                and recovered["healthz"][1] < RECOVERY_LIMIT and recovered["postback"][0] == 200
                and recovered["postback"][1] < RECOVERY_LIMIT and descriptors < FD_LIMIT
                and all(v[0] in (200,) for v in late_results.values()))
        report("descriptor exhaustion", held, figures)
    finally:
        for sock in idle:
            sock.close()
        for _, sock in pending:
            sock.close()
        server.stop()


# MARK: case 3, error-path socket leaks

def header_overflow_client(port, results):
    """A head over 80 KiB (the parser's limit), then 1 MiB more, then the reply; the socket is kept."""
    sock = socket.create_connection((HOST, port), timeout=5)
    head = f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\nX-Fill: ".encode() + b"h" * (90 * 1024) + b"\r\n\r\n"
    sent = 0
    try:
        sock.settimeout(2.0)
        sock.sendall(head)
        sent = len(head)
        more = b"m" * 65536
        for _ in range(16):
            sock.sendall(more)
            sent += len(more)
    except (socket.timeout, OSError):
        pass
    return record_reply(sock, sent, results)


def record_reply(sock, sent, results):
    """Reads what the server sends until it closes (5 s at most) and records its first status with the bytes sent;
    the socket is kept open for the caller to count."""
    data, reset = read_until_closed(sock, 5.0)
    statuses, _ = parse_responses(data)
    results.append((statuses[0] if statuses else ("reset" if reset else "none"), sent))
    return sock


def big_body_client(port, path, results):
    """POSTs a 10 MB body; the sending stops when the server stops taking it for 3 s. The socket is kept."""
    sock = socket.create_connection((HOST, port), timeout=5)
    length = 10_000_000
    sent = 0
    try:
        sock.settimeout(3.0)
        sock.sendall((f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {length}\r\n\r\n").encode())
        chunk = b"{" + b" " * 65535
        while sent < length:
            piece = chunk[:min(len(chunk), length - sent)]
            sock.sendall(piece)
            sent += len(piece)
    except (socket.timeout, OSError):
        pass
    return record_reply(sock, sent, results)


def case_leaks(folder, router):
    path_name = "router path" if router else "event-loop path"
    log(f"\n[leaks, {path_name}] {LEAK_HEADER_CLIENTS} heads over 80 KiB + 1 MiB, {LEAK_BODY_CLIENTS} 10 MB "
        f"bodies; --idle-timeout {LEAK_TIMEOUT:g} --request-timeout {LEAK_TIMEOUT:g}")
    args = ["--idle-timeout", str(LEAK_TIMEOUT), "--request-timeout", str(LEAK_TIMEOUT), "--log-level", "warning"]
    server = Server(folder, "leaks-router" if router else "leaks", args + (["--postbacks-via-router"] if router else []))
    sockets = []
    try:
        rss_start = server.rss_kb()
        header_results, body_results = [], []
        started = time.monotonic()
        with ThreadPoolExecutor(LEAK_HEADER_CLIENTS + LEAK_BODY_CLIENTS) as pool:
            futures = [pool.submit(header_overflow_client, server.port, header_results)
                       for _ in range(LEAK_HEADER_CLIENTS)]
            futures += [pool.submit(big_body_client, server.port, "/postbacks", body_results)
                        for _ in range(LEAK_BODY_CLIENTS)]
            for future in futures:
                try:
                    sockets.append(future.result(timeout=60))
                except Exception as error:  # a client that could not connect is counted by its missing result
                    log(f"  client error: {error!r}")
        clients_took = time.monotonic() - started
        rss_peak = server.rss_kb()
        now_sockets = server.sockets() - server.baseline_sockets
        # Clients still hold their ends; once the timeout passed the server must have let go of every socket.
        time.sleep(LEAK_TIMEOUT + 2)
        held_sockets = server.sockets() - server.baseline_sockets
        held_states = server.tcp_states()
        for sock in sockets:
            sock.close()
        sockets = []
        time.sleep(1.0)
        left = server.sockets() - server.baseline_sockets
        left_states = server.tcp_states()
        rss_end = server.rss_kb()
        status, _ = healthz(server.port)
        header_statuses = collections.Counter(status for status, _ in header_results)
        body_statuses = collections.Counter(status for status, _ in body_results)
        body_sent = [sent for _, sent in body_results]
        figures = (f"parser-error replies {dict(header_statuses)}, 10 MB-body replies {dict(body_statuses)} (body "
                   f"bytes sent min {min(body_sent, default=0):,} max {max(body_sent, default=0):,}); clients took "
                   f"{clients_took:.1f} s; server sockets beyond the listener: {now_sockets} when the clients had "
                   f"their replies, {held_sockets} after {LEAK_TIMEOUT + 2:g} s with clients holding on (kernel "
                   f"states on the port {held_states or 'none'}), {left} after the clients left (kernel "
                   f"{left_states or 'none'}); RSS {rss_start // 1024} -> peak {rss_peak // 1024} -> "
                   f"{rss_end // 1024} MB; /healthz then {status}")
        held = (left == 0 and held_sockets == 0 and status == 200
                and header_statuses.get(400, 0) + header_statuses.get("reset", 0) == LEAK_HEADER_CLIENTS
                and body_statuses.get(413, 0) == LEAK_BODY_CLIENTS)
        report(f"error-path sockets ({path_name})", held, figures)
    finally:
        for sock in sockets:
            sock.close()
        server.stop()


# MARK: case 4, acknowledgements

def half_close_client(port, body):
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(post_bytes("/postbacks", body))
        sock.shutdown(socket.SHUT_WR)
        return read_responses(sock, 1, 10.0)


def bad_next_client(port, body):
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(post_bytes("/postbacks", body, extra=b"\x01\x02 NOT HTTP AT ALL\r\n\r\n"))
        return read_responses(sock, 2, 5.0)


def case_acks(folder, postbacks, router):
    path_name = "router path" if router else "event-loop path"
    log(f"\n[acks, {path_name}] {ACK_COUNT} postbacks + half-close, {ACK_COUNT} postbacks + a malformed request")
    server = Server(folder, "acks-router" if router else "acks",
                    ["--log-level", "warning"] + (["--postbacks-via-router"] if router else []))
    try:
        bodies_half = [postbacks.take() for _ in range(ACK_COUNT)]
        bodies_bad = [postbacks.take() for _ in range(ACK_COUNT)]
        with ThreadPoolExecutor(16) as pool:
            half = list(pool.map(lambda body: half_close_client(server.port, body), bodies_half))
            bad = list(pool.map(lambda body: bad_next_client(server.port, body), bodies_bad))
        half_ok = sum(1 for statuses in half if statuses[:1] == [200])
        bad_ok = sum(1 for statuses in bad if statuses[:1] == [200])
        half_replies = collections.Counter(tuple(statuses) for statuses in half)
        bad_replies = collections.Counter(tuple(statuses) for statuses in bad)
        served = stats(server.admin_port)["postbacks"]
        code = server.stop()
        rows = server.rows()
        figures = (f"half-close: 200 received {half_ok}/{ACK_COUNT} (reply sequences {dict(half_replies)}); "
                   f"bad next request: 200 received {bad_ok}/{ACK_COUNT} (reply sequences {dict(bad_replies)}); "
                   f"replies received {half_ok + bad_ok}, rows stored {rows} (GET /stats said {served}); exit {code}")
        held = half_ok == ACK_COUNT and bad_ok == ACK_COUNT and rows == half_ok + bad_ok and code == 0
        report(f"acknowledgements ({path_name})", held, figures)
    finally:
        server.stop()


# MARK: case 5, refusal flood

def refused_body(index):
    body = {"version": "9" * 60000, "transaction-id": f"flood-{index}", "ad-network-id": "example.skadnetwork"}
    text = json.dumps(body, separators=(",", ":"))
    pad = FLOOD_BODY_BYTES - len(text) - len(',"pad":""')
    body["pad"] = "p" * max(0, pad)
    return json.dumps(body, separators=(",", ":")).encode()


def flood_worker(port, seconds, connections, counts):
    """Keep-alive connections posting refused bodies back to back for `seconds`."""
    template = refused_body(0)

    async def client(stop_at):
        reader = writer = None
        index = 0
        while time.monotonic() < stop_at:
            try:
                if writer is None:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 5)
                index += 1
                writer.write(post_bytes("/postbacks", template))
                await writer.drain()
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
                body = await asyncio.wait_for(reader.readexactly(length), 10)
                counts[int(head.split()[1])] += 1
                counts["reply-bytes-max"] = max(counts["reply-bytes-max"], len(head) + len(body))
                if b"connection: close" in head.lower():
                    writer.close()
                    writer = None
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
                counts[type(error).__name__] += 1
                if writer is not None:
                    writer.close()
                writer = None
                await asyncio.sleep(0.1)
        if writer is not None:
            writer.close()

    async def main():
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(client(stop_at) for _ in range(connections)))

    asyncio.run(main())


def database_bytes(db):
    sizes = {}
    for suffix in ("", "-wal", "-shm"):
        try:
            sizes[suffix or "db"] = os.path.getsize(db + suffix)
        except OSError:
            sizes[suffix or "db"] = 0
    return sizes


def case_flood(folder):
    log(f"\n[flood] {FLOOD_SECONDS} s of {FLOOD_BODY_BYTES:,}-byte refused bodies on {FLOOD_CONNECTIONS} "
        f"connections, default cap")
    server = Server(folder, "flood", ["--log-level", "error"])
    try:
        start_sizes = database_bytes(server.db)
        start_rejected = stats(server.admin_port)["rejected"]
        counts = collections.Counter()
        worker = threading.Thread(target=flood_worker, args=(server.port, FLOOD_SECONDS, FLOOD_CONNECTIONS, counts))
        started = time.monotonic()
        worker.start()
        samples = []
        previous_total, previous_rows = sum(start_sizes.values()), start_rejected
        next_sample = started + 10
        while worker.is_alive() and time.monotonic() < started + FLOOD_SECONDS + 30:
            if time.monotonic() >= next_sample:
                sizes = database_bytes(server.db)
                rows = stats(server.admin_port)["rejected"]
                total = sum(sizes.values())
                samples.append((round(time.monotonic() - started), total - previous_total, rows - previous_rows,
                                sizes))
                log(f"  t={samples[-1][0]} s: +{(total - previous_total) / 1e6:.1f} MB (db {sizes['db'] / 1e6:.1f} "
                    f"MB, wal {sizes['-wal'] / 1e6:.1f} MB), +{rows - previous_rows} refusals kept")
                previous_total, previous_rows = total, rows
                next_sample += 10
            time.sleep(0.2)
        worker.join(timeout=30)
        sizes, rows = database_bytes(server.db), stats(server.admin_port)["rejected"]
        if rows != previous_rows:  # the last, partial interval
            total = sum(sizes.values())
            samples.append((round(time.monotonic() - started), total - previous_total, rows - previous_rows, sizes))
            log(f"  t={samples[-1][0]} s: +{(total - previous_total) / 1e6:.1f} MB, +{rows - previous_rows} kept")
        running_sizes = database_bytes(server.db)
        kept = stats(server.admin_port)
        code = server.stop()
        closed_sizes = database_bytes(server.db)
        rows = server.rows(rejected=True)
        with sqlite3.connect(f"file:{server.db}?mode=ro", uri=True) as db:
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
            stored = db.execute("SELECT max(length(raw_body)), max(length(version)), max(length(reason)), "
                                "max(body_length), max(length(CAST(raw_body AS BLOB)) + length(version) + "
                                "length(reason) + coalesce(length(transaction_id), 0) + "
                                "coalesce(length(ad_network_id), 0) + coalesce(length(field), 0) + "
                                "length(endpoint) + length(status) + length(received_at)) FROM rejected_postbacks"
                                ).fetchone()
        kept_rows = rows - start_rejected
        growth_running = sum(running_sizes.values()) - sum(start_sizes.values())
        growth_closed = sum(closed_sizes.values()) - sum(start_sizes.values())
        per_row_running = growth_running / max(kept_rows, 1)
        per_row_closed = growth_closed / max(kept_rows, 1)
        sent = sum(v for k, v in counts.items() if isinstance(k, int))
        per_10s = ", ".join(f"{growth / 1e6:.1f} MB/{rows_added}" for _, growth, rows_added, _ in samples)
        figures = (f"requests answered {sent:,} ({ {k: v for k, v in counts.items() if k != 'reply-bytes-max'} }, "
                   f"{sent / FLOOD_SECONDS:.0f}/s), largest reply {counts['reply-bytes-max']} bytes; growth per 10 s "
                   f"(bytes/rows kept): {per_10s}; refusals kept {kept_rows:,} (dropped by the cap "
                   f"{kept['rejected-dropped']}); growth while running (db+wal+shm) {growth_running / 1e6:.1f} MB = "
                   f"{per_row_running:,.0f} B/row; after a clean stop (db) {growth_closed / 1e6:.1f} MB = "
                   f"{per_row_closed:,.0f} B/row; limits {ROW_LIMIT:,} B/row (5 KB) and stated {STATED_ROW_BYTES:,} "
                   f"B/row before page overhead; page size {page_size}; largest stored raw_body/version/reason "
                   f"{stored[0]}/{stored[1]}/{stored[2]} bytes (body_length {stored[3]}), largest row's values "
                   f"{stored[4]} bytes; exit {code}")
        held = (kept_rows > 0 and per_row_closed <= ROW_LIMIT and per_row_running <= ROW_LIMIT and code == 0
                and stored[4] <= STATED_ROW_BYTES)
        report("refusal flood", held, figures)
    finally:
        server.stop()


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = SLOW_CONNECTIONS + 512
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if not os.access(BIN, os.X_OK):
        sys.exit(f"no binary at {BIN}: run Benchmarks/faults.sh or set SKAN_BIN")
    log(f"skan load-and-fault cases: {BIN}, cases {','.join(CASES)}, {os.cpu_count()} cores, this script's "
        f"RLIMIT_NOFILE {soft}/{hard}, load average {' '.join(open('/proc/loadavg').read().split()[:3])}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="skan-faults-") as folder:
        probes = int(SLOW_SECONDS / PROBE_INTERVAL) + 10
        postbacks = Postbacks(folder, probes + 4 * ACK_COUNT + 20 + 12 * faults_listeners.PROBES * 2
                              + 2 * (faults_store.DAMAGE_AFTER + 5000)
                              + (faults_postgres.PG_RUNS * faults_postgres.PG_POSTBACKS if "pgduplicates" in CASES else 0))
        for case in CASES:
            try:
                if case == "slow":
                    case_slow(folder, postbacks)
                elif case == "descriptors":
                    case_descriptors(folder, postbacks)
                elif case == "leaks":
                    case_leaks(folder, router=False)
                    case_leaks(folder, router=True)
                elif case == "acks":
                    case_acks(folder, postbacks, router=False)
                    case_acks(folder, postbacks, router=True)
                elif case == "flood":
                    case_flood(folder)
                elif case == "slowreaders":
                    faults_listeners.case_slow_readers(folder, ROOT, BIN, report, log)
                elif case in ("truncate", "walremove"):
                    faults_store.case_damage(case, folder, ROOT, BIN, report, log, postbacks)
                elif case == "pgduplicates":
                    faults_postgres.case_pg_duplicates(folder, ROOT, BIN, report, log, postbacks)
                elif case == "csv":
                    faults_csv.case_csv(folder, ROOT, BIN, report, log)
                elif case == "starvation":
                    faults_listeners.case_starvation(folder, ROOT, BIN, report, log, postbacks)
                else:
                    log(f"unknown case {case}")
            except Exception as error:  # a case that could not run is a failure, and the others still run
                report(case, False, f"could not run: {error!r}")
    log(f"\nsummary ({time.monotonic() - started:.0f} s, load average "
        f"{' '.join(open('/proc/loadavg').read().split()[:3])}):")
    for case, held, _ in RESULTS:
        log(f"  {'held  ' if held else 'FAILED'}  {case}")
    sys.exit(0 if all(held for _, held, _ in RESULTS) else 1)


if __name__ == "__main__":
    main()
