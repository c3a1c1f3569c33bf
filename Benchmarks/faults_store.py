"""Store-damage cases of issue 32 for Benchmarks/faults.py: the database truncated and its WAL removed under load.

  truncate  `truncate -s 0` on the database under load: postbacks sent after the damage that were acknowledged
            (must be 0), /healthz right after (must be 503).
  walremove the -wal file removed under load: as above, then SIGKILL and a restart: acknowledged postbacks missing
            (must be 0).

Loopback only, bounded in count and time. DAMAGE_AFTER acknowledgements come before the damage (past SQLite's
automatic checkpoint, so that the main file holds pages), DAMAGE_SECONDS of load after it.
"""
import os, re, signal, sqlite3, subprocess, threading, time
import http.client

import faults_listeners

HOST = "127.0.0.1"
DAMAGE_AFTER = int(os.environ.get("DAMAGE_AFTER", "3000"))
DAMAGE_SECONDS = float(os.environ.get("DAMAGE_SECONDS", "2"))
DAMAGE_WORKERS = int(os.environ.get("DAMAGE_WORKERS", "16"))


def post(port, body):
    """True when answered accepted, False otherwise, None when the server is gone."""
    try:
        connection = http.client.HTTPConnection(HOST, port, timeout=10)
        connection.request("POST", "/postbacks", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        text = response.read()
        connection.close()
        return response.status == 200 and text == b'{"status":"accepted"}'
    except OSError:
        return None


def healthz(port):
    try:
        connection = http.client.HTTPConnection(HOST, port, timeout=5)
        connection.request("GET", "/healthz")
        status = connection.getresponse().status
        connection.close()
        return status
    except OSError:
        return None


def case_damage(kind, folder, root, binary, report, log, postbacks):
    name = f"damage-{kind}"
    server = faults_listeners.start("serve", folder, root, binary, name=name)
    db = os.path.join(folder, f"{name}.sqlite")
    port = server.ports["device"]
    lock = threading.Lock()
    before, after = [], []
    damaged = threading.Event()
    stop = threading.Event()

    def worker():
        while not stop.is_set():
            body = postbacks.take()
            sent_after = damaged.is_set()
            accepted = post(port, body)
            if accepted is None:
                return
            if accepted:
                transaction = re.search(rb'"transaction-id":\s*"([^"]+)"', body).group(1).decode()
                with lock:
                    (after if sent_after else before).append(transaction)

    threads = [threading.Thread(target=worker) for _ in range(DAMAGE_WORKERS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 120
    while len(before) < DAMAGE_AFTER and time.monotonic() < deadline:
        time.sleep(0.01)
    if kind == "truncate":
        os.truncate(db, 0)
    else:
        os.remove(db + "-wal")
    damaged.set()
    health = [healthz(port) for _ in range(3)]
    time.sleep(DAMAGE_SECONDS)
    os.kill(server.pid, signal.SIGKILL)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    server.process.wait(timeout=10)
    missing = "not counted"
    if kind == "walremove":
        # The restarted database, read as a restarted collector would: what is in its files.
        connection = sqlite3.connect(db)
        stored = {row[0] for row in connection.execute("SELECT transaction_id FROM postbacks")}
        connection.close()
        missing = sum(1 for transaction in before + after if transaction not in stored)
    held = not after and health == [503, 503, 503] and missing in (0, "not counted")
    report(f"damage-{kind}", held, f"acknowledged before {len(before)}, sent after and acknowledged {len(after)}, "
           f"healthz after {health}, acknowledged-but-missing after SIGKILL and restart: {missing}")
