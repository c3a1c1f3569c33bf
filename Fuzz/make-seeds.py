#!/usr/bin/env python3
"""Writes each fuzz target's seed corpus from the real vectors, so that mutation starts from inputs that reach deep.

Usage: make-seeds.py VECTORS_DIR SAMPLES_DIR OUT_DIR

OUT_DIR gets one folder per target (FuzzJSONReader, FuzzPostbackParser, FuzzPostbackVerifier, FuzzImpressionParser).
The postbacks are written in several spellings (compact, spaced, pretty, inside an envelope, with an extra key) because
the verifier takes all of them and every spelling of a signed postback still reaches the ECDSA check.
"""
import glob
import hashlib
import json
import os
import sys


def main():
    vectors, samples, out = sys.argv[1:4]
    targets = ["FuzzJSONReader", "FuzzPostbackParser", "FuzzPostbackVerifier", "FuzzImpressionParser",
               "FuzzFixedKeyVerifier"]
    seeds = {target: set() for target in targets}

    postbacks, impressions, documents = [], [], []
    for path in sorted(glob.glob(os.path.join(vectors, "*", "*.json"))):
        with open(path, "rb") as handle:
            raw = handle.read()
        documents.append(raw)
        document = json.loads(raw)
        if isinstance(document.get("postback"), dict):
            postbacks.append(document["postback"])
        for vector in document.get("vectors", []):
            if isinstance(vector.get("postback"), dict):
                postbacks.append(vector["postback"])
        if isinstance(document.get("impression_as_published"), dict):
            impressions.append(document["impression_as_published"])

    # The samples are postbacks exactly as sent: kept byte for byte, one per line of a .jsonl.
    wire = []
    for path in sorted(glob.glob(os.path.join(samples, "*.json*"))):
        with open(path, "rb") as handle:
            wire += [line.strip() for line in handle.read().splitlines() if line.strip()] if path.endswith(".jsonl") \
                else [handle.read().strip()]

    def spellings(obj):
        yield json.dumps(obj, separators=(",", ":")).encode()
        yield json.dumps(obj).encode()
        yield json.dumps(obj, indent=2).encode()
        yield json.dumps(obj, ensure_ascii=True).encode().replace(b'"version"', b'"vers\\u0069on"', 1)
        yield json.dumps({"send-at-ms": 1772460309123, "postback": obj}).encode()
        yield json.dumps(dict(obj, **{"relay-note": {"hops": [1, 2.5e3, None, True]}})).encode()

    for postback in postbacks:
        for text in spellings(postback):
            for target in ["FuzzJSONReader", "FuzzPostbackParser", "FuzzPostbackVerifier"]:
                seeds[target].add(text)
    for text in wire:
        for target in ["FuzzJSONReader", "FuzzPostbackParser", "FuzzPostbackVerifier"]:
            seeds[target].add(text)
    # Whole vector documents: JSON with nesting for the reader, envelopes (a "postback" member) for the verifier.
    for raw in documents:
        seeds["FuzzJSONReader"].add(raw)
        seeds["FuzzPostbackVerifier"].add(raw)
    # Each published impression also at the other versions, whose fields and signed strings differ.
    variants = []
    for impression in impressions:
        variants += [impression, json.dumps(impression, indent=2)]
        version_key = next((key for key in impression if key.endswith("ersion")), None)
        for version in ["1.0", "2.0", "2.2", "3.0"] if version_key else []:
            variants.append(dict(impression, **{version_key: version}))
    for impression in variants:
        for text in [impression.encode() if isinstance(impression, str) else json.dumps(impression).encode()]:
            seeds["FuzzImpressionParser"].add(text)
            seeds["FuzzJSONReader"].add(text)
    # Several records in one input for the splitter: JSON lines, a pretty object, a truncated line before a new one.
    lines = b"\n".join(wire[:3]) + b"\n" + json.dumps(postbacks[0], indent=2).encode() + b"\n{\"cut\": [1,\n{\"a\":\"\\\"}\"}\n"
    seeds["FuzzJSONReader"].add(lines)
    # Escapes, surrogates, numbers and nesting the vectors lack.
    seeds["FuzzJSONReader"].update([
        b'{"s":"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/","n":[-0.5e-3,0,1E+9],"o":{"a":{"b":[[[]]]}},"t":true,"f":false,"z":null}',
        b"{}",
        '{"clé":"värde","\u2063":"x"}'.encode(),
    ])

    # FuzzFixedKeyVerifier: each pool signature untouched (valid), one with s's top byte changed, and raw inputs
    # for both keys (all zero, all 0xff).
    seeds["FuzzFixedKeyVerifier"].update([bytes([2 * i]) for i in range(64)])
    seeds["FuzzFixedKeyVerifier"].update([bytes([0, 64, 0x80]), bytes([1]) + bytes(96), bytes([3]) + b"\xff" * 96])

    for target, texts in seeds.items():
        folder = os.path.join(out, target)
        os.makedirs(folder, exist_ok=True)
        for text in texts:
            name = hashlib.sha1(text).hexdigest()
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(text)
        print(f"{target}: {len(texts)} seeds in {folder}")


if __name__ == "__main__":
    main()
