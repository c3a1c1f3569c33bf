#!/usr/bin/env python3
"""Writes N distinct 4.0 postbacks signed by the simulated Apple P-256 test key, one JSON object per line.

The collector benchmark posts these so that every request is a new, valid postback: the server verifies a real
signature and inserts a new row each time, which is the cost a network pays in production.
"""
import base64, json, sys, uuid
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

SEPARATOR = "\u2063"

def main():
    count, key_path, out_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    with open(out_path, "w") as out:
        for i in range(count):
            postback = {
                "version": "4.0", "ad-network-id": "example.skadnetwork", "source-identifier": "5239",
                "app-id": 525463029, "transaction-id": str(uuid.uuid4()), "redownload": False,
                "source-app-id": 1234567891, "fidelity-type": 1, "did-win": True,
                "postback-sequence-index": 0, "conversion-value": i % 64,
            }
            signed = SEPARATOR.join([
                postback["version"], postback["ad-network-id"], postback["source-identifier"],
                str(postback["app-id"]), postback["transaction-id"], "false", str(postback["source-app-id"]),
                "1", "true", "0",
            ])
            signature = key.sign(signed.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
            postback["attribution-signature"] = base64.b64encode(signature).decode()
            out.write(json.dumps(postback, separators=(",", ":")) + "\n")

if __name__ == "__main__":
    main()
