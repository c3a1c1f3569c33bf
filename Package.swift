// swift-tools-version: 6.2
import PackageDescription

/// Every target of ours builds in Swift 6 language mode with warnings as errors.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "SKANKit",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "skan", targets: ["skan"]),
        .library(name: "SKANCore", targets: ["SKANCore"]),
        .library(name: "SKANSimulator", targets: ["SKANSimulator"]),
        .library(name: "SKANStore", targets: ["SKANStore"]),
        .library(name: "SKANStoreSQLite", targets: ["SKANStoreSQLite"]),
        .library(name: "SKANStorePostgres", targets: ["SKANStorePostgres"]),
        .library(name: "SKANCollector", targets: ["SKANCollector"]),
        .library(name: "SKANReports", targets: ["SKANReports"]),
        .library(name: "SKANSigner", targets: ["SKANSigner"]),
        .library(name: "SKANDashboard", targets: ["SKANDashboard"]),
        .library(name: "SKANRelay", targets: ["SKANRelay"]),
    ],
    dependencies: [
        // Exact: CSKANP256Table declares BoringSSL internals by hand against this version (Scripts/check-p256-symbols.sh).
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // `FilePath`, which swift-configuration's file provider takes (`skan serve --config`).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // Its default trait only (JSON): `--config FILE` is JSON, and the other traits would pull in Yams or
        // swift-log integrations the command line does not use.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Fixed-key P-256 verification on BoringSSL's assembly; its symbols come from swift-crypto's
        // CCryptoBoringSSL, which SKANCore links through Crypto.
        .target(name: "CSKANP256Table"),
        .target(
            name: "SKANCore",
            dependencies: [
                "COpenSSL",
                "CSKANP256Table",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SKANSimulator",
            dependencies: ["SKANCore"],
            swiftSettings: strict
        ),
        .target(
            name: "SKANStore",
            dependencies: [
                "SKANCore",
            ],
            swiftSettings: strict
        ),
        // Each engine is a target of its own, so a user of SKANStore links only the engines it names.
        .target(
            name: "SKANStoreSQLite",
            dependencies: [
                "SKANCore",
                "SKANStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // Its own target, so a SQLite-only user of SKANStore links no PostgreSQL code.
        .target(
            name: "SKANStorePostgres",
            dependencies: [
                "SKANCore",
                "SKANStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SKANHTTP",
            dependencies: [
                "SKANCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SKANCollector",
            dependencies: [
                "SKANCore",
                "SKANHTTP",
                "SKANStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The relay: destinations, routing into the store's outbox, and the delivery service.
        .target(
            name: "SKANRelay",
            dependencies: [
                "SKANCore",
                "SKANStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SKANSigner",
            dependencies: [
                "SKANCore",
                "SKANHTTP",
                "SKANStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SKANDashboard",
            dependencies: [
                "SKANHTTP",
                "SKANReports",
                "SKANStore",
                "SKANCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict
        ),
        .target(
            name: "SKANReports",
            dependencies: [
                "SKANCore",
                "SKANStore",
                .product(name: "CSV", package: "CSV.swift"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "skan",
            dependencies: [
                "SKANCore",
                "SKANSimulator",
                "SKANStore",
                "SKANStoreSQLite",
                "SKANStorePostgres",
                "SKANCollector",
                "SKANReports",
                "SKANSigner",
                "SKANDashboard",
                "SKANHTTP",
                "SKANRelay",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
                // `skan simulate --post` and `skan demo` post with it: URLSession would link libcurl at run time.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict,
            plugins: ["GitCommit"]
        ),
        // Writes the commit `skan --version` prints (Plugins/GitCommit/plugin.swift).
        .plugin(name: "GitCommit", capability: .buildTool()),
        .target(
            name: "SKANTestSupport",
            dependencies: [
                "SKANCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/SKANTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANTestSupportTests",
            dependencies: ["SKANTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANCoreTests",
            dependencies: ["SKANCore", "SKANTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            // Read from their paths by the tests, not bundled.
            exclude: ["Vectors", "FixedKeyCases"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANSimulatorTests",
            dependencies: ["SKANSimulator", "SKANCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANStoreTests",
            dependencies: [
                "SKANCore", "SKANStore", "SKANStoreSQLite", "SKANStorePostgres", "SKANTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANCollectorTests",
            dependencies: [
                "SKANCore",
                "SKANHTTP",
                "SKANTestSupport",
                "SKANStore",
                "SKANStoreSQLite",
                "SKANStorePostgres",
                "SKANCollector",
                "SKANRelay",
                "SKANSimulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANRelayTests",
            dependencies: [
                "SKANRelay", "SKANCore", "SKANStore", "SKANStoreSQLite", "SKANStorePostgres", "SKANTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANDashboardTests",
            dependencies: [
                "SKANDashboard", "SKANHTTP", "SKANReports", "SKANStore", "SKANStoreSQLite", "SKANStorePostgres", "SKANCore",
                "SKANTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANSignerTests",
            dependencies: [
                "SKANSigner", "SKANCore", "SKANHTTP", "SKANStore", "SKANStoreSQLite", "SKANStorePostgres", "SKANTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The slow-client cases against every listener: the collector's, the signer's and the dashboard's.
        .testTarget(
            name: "SKANFrontDoorTests",
            dependencies: [
                "SKANCollector", "SKANCore", "SKANDashboard", "SKANHTTP", "SKANSigner", "SKANStore", "SKANStoreSQLite", "SKANTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SKANReportsTests",
            dependencies: [
                "SKANReports", "SKANCore", "SKANSimulator", "SKANStore", "SKANStoreSQLite", "SKANStorePostgres", "SKANTestSupport",
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Golden"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SkanCLITests",
            dependencies: [
                "skan", "SKANCore", "SKANTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Compared by the tests, not bundled.
            exclude: ["Golden"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
