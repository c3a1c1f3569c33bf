#!/usr/bin/env python3
"""What keeping the per-day rollups costs SQLite per inserted row, and ways of keeping them, in sqlite3's own terms.

Usage: Benchmarks/rollup-trigger.py VARIANT ROWS BATCH   (REPEATS=1 in the environment: the collector benchmark's
keys, one campaign and 64 values, instead of keys that are nearly all new; DAYS=1 puts the rows on one day, as a
collector's arrivals are, instead of 30)

VARIANT: none (no rollups), current (the trigger of migration 0006: UPDATE, then INSERT when nothing changed),
current-noidx (without the campaign index), exprupsert (a trigger doing INSERT ... ON CONFLICT DO UPDATE on a
NULL-free expression key), upsert / upsert-noidx (the same on one concatenated text key), batchupsert (no trigger:
one set-based upsert per rollup after each batch), foldN (no trigger: one set-based upsert per rollup, into a
NULL-free expression key, once N rows wait: what SQLiteRollupFold does, e.g. fold2048).
Commits run with synchronous=FULL. Prints the process's CPU time and the bytes it wrote (/proc/self/io) per row,
and for foldN how long the folds took.
Prints the process's CPU time per row. The tables mirror the columns the rollups read, not the whole postbacks table.
"""
import sqlite3, random, time, os, sys
COLS = """id INTEGER PRIMARY KEY, transaction_id TEXT NOT NULL, ad_network_id TEXT NOT NULL, dedup_sequence_index INTEGER NOT NULL,
 version TEXT, campaign_id INTEGER, source_identifier TEXT, redownload INTEGER, fidelity_type INTEGER, did_win INTEGER,
 postback_sequence_index INTEGER, conversion_value INTEGER, coarse_conversion_value TEXT, raw_body BLOB NOT NULL,
 received_at TEXT NOT NULL, framework TEXT NOT NULL, conversion_type TEXT,
 UNIQUE (transaction_id, ad_network_id, dedup_sequence_index, framework)"""
R1 = ["framework","ad_network_id","conversion_type","redownload","fidelity_type","did_win","postback_sequence_index","conversion_value","coarse_conversion_value"]
R2 = ["framework","ad_network_id","campaign_id","source_identifier","conversion_type","redownload","fidelity_type","did_win","postback_sequence_index","conversion_value","coarse_conversion_value"]
CAMP = "COALESCE(CAST(campaign_id AS TEXT), source_identifier)"
def keys(cols, tier, row):
    k = [("day", f"substr({row}received_at,1,10)")] + [(c, row + c) for c in cols]
    if tier: k.append(("source_identifier_digits", f"length({row}source_identifier)"))
    return k
NULLABLE = {"campaign_id": "-1", "source_identifier": "''", "conversion_type": "''", "redownload": "-1", "fidelity_type": "-1",
            "did_win": "-1", "postback_sequence_index": "-1", "conversion_value": "-1", "coarse_conversion_value": "''", "source_identifier_digits": "-1"}
def target_of(k):
    return ", ".join(f"IFNULL({n}, {NULLABLE[n]})" if n in NULLABLE else n for n,_ in k)
def setup(db, variant):
    db.executescript(f"PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE postbacks ({COLS});")
    if variant == "none": return
    if variant.startswith("fold"):
        for name, cols, tier in [("r1", R1, True), ("r2", R2, False)]:
            k = keys(cols, tier, "")
            db.executescript(f"CREATE TABLE {name} ({', '.join(n for n,_ in k)}, cnt INTEGER NOT NULL); CREATE UNIQUE INDEX {name}_key ON {name} ({target_of(k)});")
        db.execute(f"CREATE INDEX r2_campaign ON r2 ({CAMP})")
        return
    if variant == "batchupsert":
        for name, cols, tier in [("r1", R1, True), ("r2", R2, False)]:
            k = keys(cols, tier, "")
            db.executescript(f"CREATE TABLE {name} ({', '.join(n for n,_ in k)}, cnt INTEGER NOT NULL); CREATE UNIQUE INDEX {name}_key ON {name} ({target_of(k)});")
        db.execute(f"CREATE INDEX r2_campaign ON r2 ({CAMP})")
        return
    trig = []
    for name, cols, tier in [("r1", R1, True), ("r2", R2, False)]:
        k = keys(cols, tier, "")
        kn = keys(cols, tier, "NEW.")
        if variant in ("current", "current-noidx"):
            db.executescript(f"CREATE TABLE {name} ({', '.join(n for n,_ in k)}, cnt INTEGER NOT NULL); CREATE UNIQUE INDEX {name}_key ON {name} ({', '.join(n for n,_ in k)});")
            trig.append(f"UPDATE {name} SET cnt = cnt + 1 WHERE {' AND '.join(f'{n} IS {v}' for n,v in kn)}; INSERT INTO {name} ({', '.join(n for n,_ in k)}, cnt) SELECT {', '.join(v for _,v in kn)}, 1 WHERE changes() = 0;")
        elif variant == "exprupsert":
            nullable = {"campaign_id": "-1", "source_identifier": "''", "conversion_type": "''", "redownload": "-1", "fidelity_type": "-1",
                        "did_win": "-1", "postback_sequence_index": "-1", "conversion_value": "-1", "coarse_conversion_value": "''", "source_identifier_digits": "-1"}
            target = ", ".join(f"IFNULL({n}, {nullable[n]})" if n in nullable else n for n,_ in k)
            db.executescript(f"CREATE TABLE {name} ({', '.join(n for n,_ in k)}, cnt INTEGER NOT NULL); CREATE UNIQUE INDEX {name}_key ON {name} ({target});")
            trig.append(f"INSERT INTO {name} ({', '.join(n for n,_ in k)}, cnt) VALUES ({', '.join(v for _,v in kn)}, 1) ON CONFLICT ({target}) DO UPDATE SET cnt = cnt + 1;")
        elif variant in ("upsert", "upsert-noidx"):
            # NULL-free key: one text column of every key value; ON CONFLICT needs a unique index without NULLs.
            sep = " || char(31) || "
            kexpr = sep.join(f"COALESCE({v} || '', char(0))" for _,v in kn)
            db.executescript(f"CREATE TABLE {name} (rkey TEXT PRIMARY KEY, {', '.join(n for n,_ in k)}, cnt INTEGER NOT NULL) WITHOUT ROWID;")
            trig.append(f"INSERT INTO {name} (rkey, {', '.join(n for n,_ in k)}, cnt) VALUES ({kexpr}, {', '.join(v for _,v in kn)}, 1) ON CONFLICT (rkey) DO UPDATE SET cnt = cnt + 1;")
        if name == "r2" and not variant.endswith("noidx"):
            db.execute(f"CREATE INDEX r2_campaign ON r2 ({CAMP})")
    db.executescript("CREATE TRIGGER t AFTER INSERT ON postbacks BEGIN " + " ".join(trig) + " END;")
def rows(n, seed):
    rnd = random.Random(seed)
    if os.environ.get("REPEATS"):
        return [(f"tx-{seed}-{i}", "example.skadnetwork", 0, "4.0", None, "5239", 0, 1, 1, 0, i % 64, None, os.urandom(600),
                 "2026-10-01T12:00:00.000Z", "skadnetwork", "download") for i in range(n)]
    out = []
    for i in range(n):
        day = rnd.randrange(int(os.environ.get('DAYS','30'))); digits = rnd.choice([2,3,4,4]); sid = str(rnd.randrange(10**(digits-1), 10**digits) % (10**digits))
        win = rnd.choices([0,1,2],[60,28,12])[0]
        fine = rnd.randrange(64) if (digits == 4 and win == 0) else None
        coarse = None if fine is not None else rnd.choice(["low","medium","high",None])
        out.append((f"tx-{seed}-{i}", f"net{rnd.randrange(8)}.skadnetwork", 0, "4.0", None, sid, rnd.randrange(2), rnd.randrange(2),
                    1 if rnd.random() < 0.8 else 0, win, fine, coarse, os.urandom(600),
                    f"2026-10-{day+1:02d}T12:00:00.000Z", "skadnetwork", "download"))
    return out
variant = sys.argv[1]; n = int(sys.argv[2]); batch = int(sys.argv[3])
path = f"/tmp/skan-rollup-{variant}.db"
for s in ("", "-wal", "-shm"):
    if os.path.exists(path + s): os.remove(path + s)
db = sqlite3.connect(path, isolation_level=None)
setup(db, variant)
data = rows(n, 1)
sql = "INSERT INTO postbacks (transaction_id, ad_network_id, dedup_sequence_index, version, campaign_id, source_identifier, redownload, fidelity_type, did_win, postback_sequence_index, conversion_value, coarse_conversion_value, raw_body, received_at, framework, conversion_type) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING"
def wbytes():
    return int([l for l in open("/proc/self/io") if l.startswith("write_bytes")][0].split()[1])
db.execute("PRAGMA synchronous=FULL")
fold = int(variant[4:]) if variant.startswith("fold") else 0
mark = 0
folds = []
w0 = wbytes()
t = time.process_time()
for i in range(0, n, batch):
    db.execute("BEGIN")
    first = db.execute("SELECT COALESCE(max(id),0) FROM postbacks").fetchone()[0]
    for r in data[i:i+batch]: db.execute(sql, r)
    last = db.execute("SELECT COALESCE(max(id),0) FROM postbacks").fetchone()[0]
    if fold and (last - mark >= fold or i + batch >= n):
        t0 = time.perf_counter()
        for name, cols, tier in [("r1", R1, True), ("r2", R2, False)]:
            k = keys(cols, tier, "")
            db.execute(f"INSERT INTO {name} ({', '.join(n for n,_ in k)}, cnt) SELECT {', '.join(v for _,v in k)}, count(*) FROM postbacks WHERE id > ? GROUP BY {', '.join(str(j+1) for j in range(len(k)))} ORDER BY {', '.join(str(j+1) for j in range(len(k)))} ON CONFLICT ({target_of(k)}) DO UPDATE SET cnt = cnt + excluded.cnt", (mark,))
        mark = last
        folds.append(time.perf_counter() - t0)
    if variant == "batchupsert":
        for name, cols, tier in [("r1", R1, True), ("r2", R2, False)]:
            k = keys(cols, tier, "")
            db.execute(f"INSERT INTO {name} ({', '.join(n for n,_ in k)}, cnt) SELECT {', '.join(v for _,v in k)}, count(*) FROM postbacks WHERE id > ? GROUP BY {', '.join(str(j+1) for j in range(len(k)))} ON CONFLICT ({target_of(k)}) DO UPDATE SET cnt = cnt + excluded.cnt", (first,))
    db.execute("COMMIT")
cpu = time.process_time() - t
w = wbytes() - w0
print(f"{variant} {n} rows batch {batch}: {cpu/n*1e6:.1f} us/row CPU, {w/n:.0f} bytes written/row, fold ms max {max(folds or [0])*1000:.0f} median {sorted(folds or [0])[len(folds)//2]*1000:.0f}")
