import Foundation
import Logging
import Prometheus
import SKANCollector
import SKANCore
import SKANStore
import SKANTestSupport
import Synchronization
import Testing

/// The retention worker (issue 38) on an injected clock: each pass deletes what has expired at its moment, and
/// nothing sleeps.
@Suite("Retention service")
struct RetentionServiceTests {
    static let base = Date(timeIntervalSince1970: 1_780_012_800)

    static func day(_ day: Int) -> Date { base.addingTimeInterval(Double(day) * 86_400) }

    /// Ten days of four postbacks; their ids by day.
    static func fill(_ store: MemoryPostbackStore) async throws -> [[String]] {
        var ids: [[String]] = []
        for day in 0 ..< 10 {
            var entries: [StoreEntry] = [], dayIDs: [String] = []
            for index in 0 ..< 4 {
                let id = "d\(day)-\(index)"
                let (verified, body) = TestPostbacks.verified(transactionID: id)
                entries.append(.accepted(AcceptedPostback(attribution: verified, rawBody: body,
                                                          receivedAt: Self.day(day).addingTimeInterval(Double(index) * 60),
                                                          endpoint: "/postbacks")))
                dayIDs.append(id)
            }
            _ = try await store.write(entries)
            ids.append(dayIDs)
        }
        return ids
    }

    @Test("each pass deletes the rows and empties the bodies expired at its moment, and the wait is the clock's")
    func passes() async throws {
        let store = MemoryPostbackStore()
        let ids = try await Self.fill(store)
        let now = Mutex(Self.day(8))
        let waits = Mutex<[Duration]>([])
        let registry = PrometheusCollectorRegistry()
        let service = RetentionService(
            retention: Retention(postbackDays: 3, bodyDays: 1, batch: 3, interval: .seconds(600)), store: store,
            registry: registry, logger: Logger(label: "test"), now: { now.withLock { $0 } },
            sleep: { duration in
                // The second wait ends the service, as a cancelled sleep does.
                let count = waits.withLock { $0.append(duration); return $0.count }
                if count == 2 { throw CancellationError() }
                now.withLock { $0 = $0.addingTimeInterval(86_400) }
            })
        try await service.run()
        #expect(waits.withLock { $0 } == [.seconds(600), .seconds(600)])
        // Pass one at day 8: rows before day 5 deleted, bodies before day 7 emptied; pass two at day 9: day 5's rows,
        // day 7's bodies.
        for (day, dayIDs) in ids.enumerated() {
            for id in dayIDs {
                let rows = try await store.postbacks(transactionID: id)
                #expect(rows.count == (day < 6 ? 0 : 1), "day \(day)")
                if let row = rows.first { #expect(row.rawBody.isEmpty == (day < 8), "day \(day)") }
            }
        }
        let metrics = registry.emitToString()
        #expect(metrics.contains("skan_retention_postbacks_deleted_total 24"), "\(metrics)")
        #expect(metrics.contains("skan_retention_bodies_emptied_total 12"), "\(metrics)")
    }

    @Test("a collector refuses a retention under one day; the default keeps everything")
    func configuration() async throws {
        var configuration = CollectorConfiguration(port: 0)
        configuration.retention = Retention(postbackDays: 0)
        #expect(throws: CollectorError.self) {
            _ = try Collector(configuration: configuration, store: MemoryPostbackStore(), logger: Logger(label: "test"))
        }
        #expect(Retention().keepsEverything)
    }
}
