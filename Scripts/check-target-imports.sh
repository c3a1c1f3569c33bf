#!/usr/bin/env bash
# Checks that every target of Package.swift declares each module its Swift files import, and declares nothing it
# does not import (a target links what it declares: an undeclared import builds only while another target happens
# to pull the module in; an unused one links a library for nothing). Prints each target's declared dependencies and
# one line per mismatch; exits non-zero on any. Run from the package root.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-package | python3 -c '
import json, os, re, sys
package = json.load(sys.stdin)
# Modules of the platform and toolchain, never declared.
system = {"Foundation", "FoundationNetworking", "FoundationEssentials", "Synchronization", "Dispatch", "Glibc", "Musl",
          "Darwin", "Testing", "XCTest", "PackagePlugin"}
# What a target named in a dependency is imported as (the C table is imported by its folder name).
failures = 0
for target in package["targets"]:
    if target["type"] in ("system", "plugin"):
        continue
    name = target["name"]
    path = target.get("path") or ("Tests/" + name if target["type"] == "test" else "Sources/" + name)
    declared = set()
    for dependency in target["dependencies"]:
        for kind, value in dependency.items():
            declared.add(value[0])
    imported = set()
    for folder, _, files in os.walk(path):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(folder, file)) as f:
                    for line in f:
                        match = re.match(r"\s*(?:@testable\s+|@_exported\s+|public\s+|internal\s+|package\s+)*import\s+(?:struct\s+|enum\s+|class\s+|func\s+)?(\w+)", line)
                        if match:
                            imported.add(match.group(1))
    imported -= system
    imported.discard(name)
    # C targets are used from C or through the Swift target that wraps them, so only Swift imports are compared.
    c_only = {d for d in declared if d in ("COpenSSL", "CSKANP256Table")}
    print(name + ": " + " ".join(sorted(declared)))
    for module in sorted(imported - declared):
        print(f"  {name} imports {module} but does not declare it"); failures += 1
    for module in sorted(declared - imported - c_only):
        if target["type"] == "test" and module == "skan":
            continue  # the CLI tests run the built executable
        print(f"  {name} declares {module} but imports it nowhere"); failures += 1
sys.exit(1 if failures else 0)
'
