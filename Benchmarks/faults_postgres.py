"""PostgreSQL case of issue 32 for Benchmarks/faults.py: two collectors given the same postbacks.

  pgduplicates  a throwaway durable cluster (Scripts/postgres-test-server.sh), PG_RUNS runs each on a fresh database:
                two `skan serve --db postgres://...` on it, and PG_POSTBACKS distinct postbacks sent to both at once,
                to one in order and to the other reversed (PG_WORKERS keep-alive connections each), so that their
                batches hold the same keys in opposite arrival orders. Held when no answer was a 503, PostgreSQL
                detected no deadlock (pg_stat_database.deadlocks, which also counts a batch the store ran again after
                one), neither log names one (40P01), and every postback is one row. Before the batches locked rows in key
                order: 7-9 batches per 20,000 met `deadlock detected (40P01)` and answered 503.

Loopback only, bounded in count and time.
"""
import http.client, os, re, subprocess, tempfile, threading, time

import faults_listeners

HOST = "127.0.0.1"
PG_RUNS = int(os.environ.get("PG_RUNS", "10"))
PG_POSTBACKS = int(os.environ.get("PG_POSTBACKS", "20000"))
PG_WORKERS = int(os.environ.get("PG_WORKERS", "16"))


def send_all(port, bodies, workers, counts, lock):
    """Posts `bodies` over `workers` keep-alive connections, each taking the next body in order; counts statuses."""
    queue = list(reversed(bodies))  # pop() takes them in the given order

    def worker():
        connection = None
        while True:
            with lock:
                if not queue:
                    break
                body = queue.pop()
            for _ in range(2):  # once more on a fresh connection if the kept one was closed under us
                try:
                    connection = connection or http.client.HTTPConnection(HOST, port, timeout=30)
                    connection.request("POST", "/postbacks", body, {"Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    status = response.status
                    break
                except OSError:
                    connection = None
                    status = "error"
            with lock:
                counts[status] = counts.get(status, 0) + 1
        if connection:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    return threads


def case_pg_duplicates(folder, root, binary, report, log, postbacks):
    cluster = tempfile.mkdtemp(prefix="skan-faults-pg-")
    script = os.path.join(root, "Scripts/postgres-test-server.sh")
    started = subprocess.run([script, "start", cluster, str(os.getpid()), "--durable"], check=True,
                             capture_output=True, text=True).stdout
    url = re.search(r"^url=(.*)$", started, re.M).group(1)
    psql = os.path.join(re.search(r"^bin=(.*)$", started, re.M).group(1), "psql")
    base = url.rsplit("/", 1)[0]
    key = os.path.join(root, "Keys/test/simulated-apple-p256-public-key.pem")
    results = []
    try:
        for run in range(PG_RUNS):
            database = f"duplicates_{run}_{os.getpid()}"
            subprocess.run([psql, "-X", "-q", f"{base}/postgres", "-c", f"CREATE DATABASE {database}"], check=True)
            db = f"{base}/{database}"
            # The first migrates; the second starts on the migrated schema.
            servers = [faults_listeners.Proc(folder, f"pg-{run}-{index}",
                                             [binary, "serve", "--db", db, "--host", HOST, "--port", "0", "--rate-limit", "0",
                                              "--apple-key-p256", key], ["device", "admin"]) for index in range(2)]
            bodies = [postbacks.take() for _ in range(PG_POSTBACKS)]
            counts, lock = {}, threading.Lock()
            began = time.monotonic()
            threads = (send_all(servers[0].ports["device"], bodies, PG_WORKERS, counts, lock)
                       + send_all(servers[1].ports["device"], list(reversed(bodies)), PG_WORKERS, counts, lock))
            for thread in threads:
                thread.join(timeout=600)
            seconds = time.monotonic() - began
            logs = "".join(server.log_text() for server in servers)
            codes = [server.stop() for server in servers]
            deadlocks = len(re.findall(r"40P01|deadlock", logs))
            rows = int(subprocess.run([psql, "-X", "-A", "-t", db, "-c", "SELECT count(*) FROM postbacks"], check=True,
                                      capture_output=True, text=True).stdout.strip())
            # What the server detected, retried or not: a batch run again after a deadlock answers 200 and logs at
            # debug only. The collectors' sessions have ended, so their counts are flushed.
            time.sleep(1)
            detected = int(subprocess.run([psql, "-X", "-A", "-t", f"{base}/postgres", "-c",
                                           f"SELECT deadlocks FROM pg_stat_database WHERE datname = '{database}'"],
                                          check=True, capture_output=True, text=True).stdout.strip() or -1)
            held = (set(counts) == {200} and deadlocks == 0 and detected == 0 and rows == PG_POSTBACKS
                    and codes == [0, 0])
            results.append(held)
            log(f"  run {run + 1}: {counts} in {seconds:.1f} s, deadlocks detected by PostgreSQL {detected}, log lines "
                f"naming one {deadlocks}, rows {rows} of {PG_POSTBACKS}, exit {codes}")
    finally:
        subprocess.run([script, "stop", cluster], capture_output=True)
    report("pg-duplicates", len(results) == PG_RUNS and all(results),
           f"{sum(results)} of {PG_RUNS} runs with no 503, no deadlock detected or logged and every postback one row "
           f"({PG_POSTBACKS} postbacks to two collectors, opposite orders)")
