import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Conflicts, reconciled copies and consistency rules, read back through each engine's reader (the memory engine
/// included: its Swift is the reference the SQL is held to), against counts worked out by hand.
@Suite("Integrity report", .temporaryFolder)
struct IntegrityReportTests {
    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case memory
        case sqlite = "SQLite"
        case postgres = "PostgreSQL"

        static var allCases: [Engine] { [.memory, .sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : []) }

        var testDescription: String { rawValue }

        func make() throws -> (engine: any StorageEngine, location: String) {
            switch self {
            case .memory: return (MemoryEngine(), "memory:integrity")
            case .sqlite, .postgres: return try ReaderConformanceTests.Engine(rawValue: rawValue)!.make()
            }
        }
    }

    static let network = CollectorPaths.network
    static let developer = CollectorPaths.developer
    static let receivedAt = Date(timeIntervalSince1970: 1_780_000_000)

    /// Plain copies of the collector's paths: the reports tests do not link the collector.
    enum CollectorPaths {
        static let network = "/postbacks"
        static let developer = "/.well-known/skadnetwork/report-attribution/"
    }

    static func entry(_ pair: (VerifiedAttribution, [UInt8]), at endpoint: String, from address: String? = nil) -> StoreEntry {
        var accepted = AcceptedPostback(attribution: pair.0, rawBody: pair.1, receivedAt: receivedAt, endpoint: endpoint)
        accepted.clientAddress = address
        return .accepted(accepted)
    }

    /// Writes each batch in turn through the engine's store and opens its reader.
    static func reader(_ engine: Engine, _ batches: [[StoreEntry]]) async throws -> any PostbackReader {
        let (storage, location) = try engine.make()
        let store = try storage.openStore(location, options: StoreOptions(durability: .normal))
        try await StoreHost.running([store]) {
            try await store.migrate()
            for batch in batches { _ = try await store.write(batch) }
            try await store.close()
        }
        return try await storage.openReader(location)
    }

    @Test("a relayed copy that disagrees is found, agreeing and one-sided copies are told apart", arguments: Engine.allCases)
    func reconciliation(_ engine: Engine) async throws {
        // Install 1: the network's postback says 20, the developer copy 42 (a relay changed one of them).
        var disagreeing = TestPostbacks.postback()
        let networkCopy = TestPostbacks.verified(disagreeing)
        disagreeing.conversionValue = 42
        let developerCopy = TestPostbacks.verified(disagreeing)
        // Install 2: both sides agree. Install 3: only the network's postback. Install 4: only a developer copy.
        let agreeing = TestPostbacks.verified()
        let reader = try await Self.reader(engine, [
            [Self.entry(networkCopy, at: Self.network), Self.entry(agreeing, at: Self.network),
             Self.entry(TestPostbacks.verified(), at: Self.network), Self.entry(TestPostbacks.verified(), at: Self.developer)],
            [Self.entry(developerCopy, at: Self.developer, from: "203.0.113.9"), Self.entry(agreeing, at: Self.developer),
             // A device's retry of the agreeing copy: nothing new.
             Self.entry(agreeing, at: Self.developer)],
        ])
        try await StoreHost.running([reader]) {
            let rows = try await IntegrityReport.rows(from: reader)
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(row.network == "example.skadnetwork")
            #expect(row.conflicts == 1)
            #expect(row.conflictsByField == ["conversion-value": 1])
            #expect(row.copiesDisagreeing == 1)
            #expect(row.copiesAgreeing == 1)
            #expect(row.networkOnly == 1)
            #expect(row.developerOnly == 1)
            #expect(row.rules.isEmpty)
            // The kept rows: the disagreeing copy with both values and where each came from, the agreeing copy (once).
            var exported: [[String: String]] = []
            var names: [String] = []
            try await reader.export(.repeats) { names = $0 } each: { row in
                var values: [String: String] = [:]
                for index in 0..<row.valueCount {
                    switch row.value(at: index) {
                    case .text(let bytes), .blob(let bytes): values[names[index]] = String(decoding: bytes, as: UTF8.self)
                    case .integer(let number): values[names[index]] = String(number)
                    default: break
                    }
                }
                exported.append(values)
            }
            #expect(names == RepeatTable.exportColumns)
            #expect(exported.count == 2)
            let conflict = try #require(exported.first { $0["differing"] == "conversion-value" })
            #expect(conflict["first_conversion_value"] == "20")
            #expect(conflict["repeat_conversion_value"] == "42")
            #expect(conflict["first_side"] == "network")
            #expect(conflict["first_endpoint"] == Self.network)
            #expect(conflict["repeat_side"] == "developer")
            #expect(conflict["repeat_endpoint"] == Self.developer)
            #expect(conflict["repeat_client_address"] == "203.0.113.9")
            #expect(conflict["transaction_id"] == disagreeing.transactionID)
            #expect(conflict["repeat_raw_body"] == String(decoding: developerCopy.1, as: UTF8.self))
            #expect(exported.filter { ($0["differing"] ?? "").isEmpty }.count == 1)
            #expect(try await reader.stats().conflicts == 1)
            let latest = try await reader.latestConflicts(limit: 5)
            #expect(latest.map(\.dedupID) == [disagreeing.transactionID])
            #expect(latest.first?.firstValues == "conversion-value=20;coarse-value=;country=;interaction=1")
            #expect(latest.first?.repeatValues == "conversion-value=42;coarse-value=;country=;interaction=1")
            #expect(latest.first?.clientAddress == "203.0.113.9")
            // An agreeing copy keeps no body: its stored postback has the same.
            let agreeingRow = try #require(exported.first { ($0["differing"] ?? "").isEmpty })
            #expect((agreeingRow["repeat_raw_body"] ?? "").isEmpty)
            await reader.close()
        }
    }

    /// A postback that breaks `rule`, and one like it that does not.
    static func pairs() -> [(rule: PostbackCheck, trips: (VerifiedAttribution, [UInt8]), passes: (VerifiedAttribution, [UInt8]))] {
        func skan(_ change: (inout Postback) -> Void, sequenceIndex: Int = 0) -> (VerifiedAttribution, [UInt8]) {
            var postback = TestPostbacks.postback(sequenceIndex: sequenceIndex)
            change(&postback)
            return TestPostbacks.verified(postback)
        }
        let aak = TestPostbacks.verifier.verify(TestPostbacks.aakBody())
        guard case .valid(let production) = aak else { fatalError("the AdAttributionKit test postback did not verify") }
        // Apple's development private keys are not published: the verified record is given the development kid the
        // store keeps, as the verifier would with `--aak-development`.
        let development = VerifiedAttribution(framework: production.framework, fields: production.fields,
                                              keyName: "apple-aak-development-1", scheme: "apple-development-identifier/1",
                                              note: nil, detail: production.detail)
        return [
            (.fineAfterFirstWindow, skan({ _ in }, sequenceIndex: 1),
             skan({ $0.conversionValue = nil; $0.coarseConversionValue = .medium }, sequenceIndex: 2)),
            (.fineAndCoarse, skan { $0.coarseConversionValue = .low }, skan { _ in }),
            // campaign-id belongs to 1.0–3.0; 4.0 does not sign it, so the signature holds.
            (.fieldNotInVersion, skan { $0.campaignID = 42 }, skan { $0.countryCode = "FR" }),
            (.developmentKey, (development, TestPostbacks.aakBody()), (production, TestPostbacks.aakBody())),
        ]
    }

    @Test("each consistency rule counts the postback that breaks it and not the one that keeps it",
          arguments: Engine.allCases)
    func rules(_ engine: Engine) async throws {
        let cases = Self.pairs()
        for (rule, trips, passes) in cases {
            let reader = try await Self.reader(engine, [[Self.entry(trips, at: Self.network)]])
            try await StoreHost.running([reader]) {
                let tripped = try await reader.checks(from: nil, to: nil)
                #expect(tripped.flatMap(\.rules) .map(\.key) == [rule], "\(rule)")
                #expect(tripped.first?.rules[rule] == 1, "\(rule)")
                await reader.close()
            }
            let clean = try await Self.reader(engine, [[Self.entry(passes, at: Self.network)]])
            try await StoreHost.running([clean]) {
                let checks = try await clean.checks(from: nil, to: nil)
                #expect(checks.allSatisfy { $0.rules.isEmpty }, "\(rule)")
                await clean.close()
            }
        }
    }

    @Test("the rules and the copies count only the days asked for", arguments: Engine.allCases)
    func dateRange(_ engine: Engine) async throws {
        let reader = try await Self.reader(engine, [[Self.entry(Self.pairs()[1].trips, at: Self.network)]])
        try await StoreHost.running([reader]) {
            let day = String(Timestamp.iso8601(Self.receivedAt).prefix(10))
            let that = try await IntegrityReport.rows(from: reader, from: day, to: day)
            #expect(that.first?.rules == [.fineAndCoarse: 1])
            let later = try await IntegrityReport.rows(from: reader, from: "2099-01-01")
            #expect(later.isEmpty)
            await reader.close()
        }
    }

    /// A postback of `network` and copies of it with `changes` applied to what Apple does not sign.
    static func copies(network: String = "example.skadnetwork", _ changes: [(inout Postback) -> Void])
        -> [(VerifiedAttribution, [UInt8])] {
        let postback = TestPostbacks.postback(adNetworkID: network)
        return [TestPostbacks.verified(postback)] + changes.map { change in
            var copy = postback
            change(&copy)
            return TestPostbacks.verified(copy)
        }
    }

    @Test("the engine's aggregate gives the hand-computed answer on a mix of sides, fields and networks",
          arguments: Engine.allCases)
    func mixedCase(_ engine: Engine) async throws {
        let (net, dev) = (Self.network, Self.developer)
        // K1: network first; a developer copy with another value (pair, disagreeing); the network resends another
        // country (a same-side conflict: not a disagreement of copies).
        let k1 = Self.copies([{ $0.conversionValue = 42 }, { $0.countryCode = "FR" }])
        // K2: developer first; an agreeing network copy, then a network copy with another value: one pair, disagreeing.
        let k2 = Self.copies([{ _ in }, { $0.conversionValue = 5 }])
        // K3: network first, developer copy agrees. K4: network first, the network resends another value (no pair).
        let k3 = Self.copies([{ _ in }])
        let k4 = Self.copies([{ $0.conversionValue = 9 }])
        // K5: network only. K6: developer only. K7: another network, a developer copy differing in two values.
        let k5 = Self.copies([]), k6 = Self.copies([])
        let k7 = Self.copies(network: "other.skadnetwork", [{ $0.conversionValue = 1; $0.countryCode = "DE" }])
        let reader = try await Self.reader(engine, [
            [Self.entry(k1[0], at: net), Self.entry(k2[0], at: dev), Self.entry(k3[0], at: net), Self.entry(k4[0], at: net),
             Self.entry(k5[0], at: net), Self.entry(k6[0], at: dev), Self.entry(k7[0], at: net)],
            [Self.entry(k1[1], at: dev), Self.entry(k1[2], at: net), Self.entry(k2[1], at: net), Self.entry(k3[1], at: dev),
             Self.entry(k4[1], at: net), Self.entry(k7[1], at: dev)],
            [Self.entry(k2[2], at: net), Self.entry(k2[1], at: net), Self.entry(k1[1], at: dev)],
        ])
        try await StoreHost.running([reader]) {
            let rows = try await IntegrityReport.rows(from: reader)
            var example = IntegrityRow(network: "example.skadnetwork")
            example.conflicts = 4
            example.conflictsByField = ["conversion-value": 3, "country": 1]
            example.copiesAgreeing = 1
            example.copiesDisagreeing = 2
            example.developerOnly = 1
            example.networkOnly = 2
            var other = IntegrityRow(network: "other.skadnetwork")
            other.conflicts = 1
            other.conflictsByField = ["conversion-value": 1, "country": 1]
            other.copiesDisagreeing = 1
            #expect(rows == [example, other])
            // The engine's SQL and the memory engine's Swift say the same of the same rows.
            #expect(try await reader.repeatCounts(from: nil, to: nil) == [
                RepeatCounts(network: "example.skadnetwork", conflicts: 4, conflictsByField: ["conversion-value": 3, "country": 1],
                             copiesAgreeing: 1, copiesDisagreeing: 2, pairsFromDeveloper: 1),
                RepeatCounts(network: "other.skadnetwork", conflicts: 1, conflictsByField: ["conversion-value": 1, "country": 1],
                             copiesDisagreeing: 1),
            ])
            #expect(try await reader.repeatCounts(from: "2099-01-01", to: nil).isEmpty)
            await reader.close()
        }
    }

    @Test("the first copy's path and client address are kept whether the repeat arrives in its batch or a later one",
          arguments: Engine.allCases)
    func firstClientAddress(_ engine: Engine) async throws {
        let together = Self.copies([{ $0.conversionValue = 42 }])
        let apart = Self.copies([{ $0.conversionValue = 43 }])
        let reader = try await Self.reader(engine, [
            [Self.entry(apart[0], at: Self.network, from: "198.51.100.1")],
            [Self.entry(together[0], at: Self.network, from: "198.51.100.2"),
             Self.entry(together[1], at: Self.developer, from: "203.0.113.9"),
             Self.entry(apart[1], at: Self.developer, from: "203.0.113.10")],
        ])
        try await StoreHost.running([reader]) {
            let latest = try await reader.latestConflicts(limit: 5)
            #expect(latest.map(\.clientAddress) == ["203.0.113.10", "203.0.113.9"])
            // The first copy of `apart` was stored a batch before its repeat: its address is the stored row's.
            #expect(latest.map(\.firstClientAddress) == ["198.51.100.1", "198.51.100.2"])
            #expect(latest.map(\.firstEndpoint) == [Self.network, Self.network])
            var names: [String] = []
            var addresses: [String?] = []
            try await reader.export(.repeats) { names = $0 } each: { row in
                let index = try #require(names.firstIndex(of: "first_client_address"))
                if case .text(let bytes) = row.value(at: index) { addresses.append(String(decoding: bytes, as: UTF8.self)) }
                else { addresses.append(nil) }
            }
            #expect(names == RepeatTable.exportColumns)
            #expect(addresses == ["198.51.100.2", "198.51.100.1"])
            // Each postback keeps the address it arrived from; the repeats themselves are not stored there.
            var stored: [String?] = []
            try await reader.export(.postbacks) { names = $0 } each: { row in
                let index = try #require(names.firstIndex(of: PostbackTable.clientAddress.name))
                if case .text(let bytes) = row.value(at: index) { stored.append(String(decoding: bytes, as: UTF8.self)) }
                else { stored.append(nil) }
            }
            #expect(names == PostbackTable.exportColumns)
            #expect(stored == ["198.51.100.1", "198.51.100.2"])
            await reader.close()
        }
    }
}
