// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for SKANCore's parsers and verifier, kept out of the root package so that `swift build` and
// `swift test` there never need the fuzzer runtime. Build and run them with `Fuzz/run.sh` (see Fuzz/README.md):
// it passes `-sanitize=fuzzer,address`, which this manifest cannot set per target.

/// Warnings are errors here as in the root package.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

/// One executable per fuzz target; libFuzzer supplies `main` and calls the target's `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "SKANCore", package: "skankit")],
        swiftSettings: strict
    )
}

let package = Package(
    name: "SKANKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // `SKANKit` is a symbolic link to `..`: a path dependency's identity is its folder's name, so `..` would be
        // named after wherever the repository is checked out (and clash with this package's own `fuzz` in a
        // checkout called `fuzz`); through the link it is always `skankit`.
        .package(path: "SKANKit"),
        // The differential target compares with swift-crypto's verify directly; the root pins this version.
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
    ],
    targets: [
        fuzzTarget("FuzzJSONReader"),
        fuzzTarget("FuzzPostbackParser"),
        fuzzTarget("FuzzPostbackVerifier"),
        fuzzTarget("FuzzImpressionParser"),
        .executableTarget(
            name: "FuzzFixedKeyVerifier",
            dependencies: [
                .product(name: "SKANCore", package: "skankit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
