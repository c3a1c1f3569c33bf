import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Every engine's read side must answer every report query with the rows the memory engine computes in plain Swift
/// (``MemoryPostbackReader``, the readable reference), in the same order, and stream the same exports, counters and
/// refusals, over the same traffic-shaped postbacks (``ReaderTraffic``). Each engine is reached only through the
/// one value it exports (``StorageEngine``), as the command line reaches it.
@Suite("Reader conformance", .temporaryFolder)
struct ReaderConformanceTests {
    /// The engines compared with the memory engine (a PostgreSQL database on the test server, left out with the
    /// reason printed when no server could be started).
    typealias Engine = RollupEngine

    /// Writes `entries` through `engine`'s store at `location` in batches, then opens its reader.
    static func stored(_ entries: [StoreEntry], engine: any StorageEngine, location: String) async throws -> any PostbackReader {
        let store = try engine.openStore(location, options: StoreOptions(durability: .normal, rejectionCap: RejectionCap(maximumRows: 10)))
        try await StoreHost.running([store]) {
            try await store.migrate()
            for start in stride(from: 0, to: entries.count, by: 500) {
                _ = try await store.write(Array(entries[start..<min(start + 500, entries.count)]))
            }
            // PostgreSQL's refusal cap is a periodic job: run it now, as the store conformance suite's `settle` does.
            if let store = store as? PostgresPostbackStore { try await store.enforceRejectionCap() }
            try await store.close()
        }
        return try await engine.openReader(location)
    }

    static func rows(_ query: AggregateQuery, on reader: any PostbackReader) async throws -> [AggregateRow] {
        var rows: [AggregateRow] = []
        try await reader.aggregate(query) { rows.append($0) }
        return rows
    }

    /// Rows in a canonical order where a query leaves it open: the engines order by the dimensions only, so the value
    /// split rows of one group may come in any order.
    static func canonical(_ rows: [AggregateRow], _ query: AggregateQuery) -> [AggregateRow] {
        guard query.splitsByValue else { return rows }
        return rows.enumerated().sorted { a, b in
            a.element.keys != b.element.keys ? a.offset < b.offset
                : ((a.element.conversionValue ?? -1), a.element.coarseValue ?? "") < ((b.element.conversionValue ?? -1), b.element.coarseValue ?? "")
        }.map(\.element)
    }

    static func export(_ reader: any PostbackReader, rejected: Bool, format: Exporter.Format) async throws -> String {
        let out = try TemporaryFolder.current.path("readers-\(UUID().uuidString)")
        let stream = try BufferedOutput(path: out)
        try await Exporter.export(from: reader, rejected: rejected, format: format, to: stream)
        try stream.commit()
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    @Test("every report query, export, counter and refusal list equals the memory engine's", arguments: Engine.allCases)
    func sameAnswers(_ engine: Engine) async throws {
        let entries = ReaderTraffic.entries()
        let memory = MemoryEngine()
        let reference = try await Self.stored(entries, engine: memory, location: "memory:traffic")
        let (other, location) = try engine.make()
        let reader = try await Self.stored(entries, engine: other, location: location)
        try await StoreHost.running([reader]) {
            var compared = 0
            for query in ReaderTraffic.queries {
                let expected = Self.canonical(try await Self.rows(query, on: reference), query)
                let actual = Self.canonical(try await Self.rows(query, on: reader), query)
                #expect(actual == expected, "\(engine.rawValue) differs from memory on \(query)")
                compared += expected.count
            }
            // The data reaches every shape: thousands of groups in all, not a few.
            #expect(compared > 5_000)
            for (rejected, format) in [(false, Exporter.Format.csv), (false, .jsonl), (true, .csv), (true, .jsonl)] {
                let expected = try await Self.export(reference, rejected: rejected, format: format)
                let actual = try await Self.export(reader, rejected: rejected, format: format)
                #expect(actual == expected, "\(engine.rawValue) export (rejected: \(rejected), \(format.rawValue)) differs from memory")
                if actual != expected, let first = zip(actual.split(separator: "\n"), expected.split(separator: "\n")).first(where: { $0 != $1 }) {
                    print("first differing line:\n  \(engine.rawValue): \(first.0.prefix(400))\n  memory: \(first.1.prefix(400))")
                }
                #expect(expected.count > 1_000)
            }
            #expect(try await reader.stats() == reference.stats())
            #expect(try await reader.latestRefusals(limit: 5) == reference.latestRefusals(limit: 5))
            await reader.close()
        }
    }

    @Test("runs on PostgreSQL too, or says why not (and fails where SKAN_REQUIRE_POSTGRES=1)")
    func postgresRuns() {
        if let reason = PostgresTestServer.skipReason {
            print("PostgreSQL reader conformance skipped: \(reason)")
            #expect(!PostgresTestServer.isRequired, "SKAN_REQUIRE_POSTGRES=1, but no PostgreSQL test server: \(reason)")
        } else {
            #expect(Engine.allCases.contains(.postgres))
        }
    }
}

extension RollupEngine {
    /// The engine's value and a new location for it.
    func make() throws -> (engine: any StorageEngine, location: String) {
        switch self {
        case .sqlite:
            let path = try TemporaryFolder.current.path("readers-\(UUID().uuidString).sqlite")
            return (SQLiteEngine(), path)
        case .postgres:
            let server = try #require(PostgresTestServer.shared)
            return (PostgresEngine(), try server.makeDatabase())
        }
    }
}
