import Foundation
import SKANCollector
import SKANCore
import SKANTestSupport
import Testing

/// A repeat that changed what Apple does not sign is kept beside the counted postback, and the device is answered
/// exactly as for any duplicate.
@Suite("Conflict routes")
struct ConflictRouteTests {
    typealias H = CollectorHarness

    @Test("a developer copy with another conversion value gets 200 duplicate; the counted row keeps the first value",
          arguments: Transport.allCases)
    func conflictingCopy(transport: Transport) async throws {
        try await H.withCollector(transport) { collector, client in
            var postback = TestPostbacks.postback()
            let first = try await H.post(client, Array(postback.json.utf8), path: CollectorConfiguration.networkPath)
            #expect(first.body == #"{"status":"accepted"}"#)
            postback.conversionValue = 63
            let copy = try await H.post(client, Array(postback.json.utf8), path: CollectorConfiguration.developerCopyPath)
            #expect(copy.status == 200)
            #expect(copy.body == #"{"status":"duplicate"}"#)
            let stats = try await collector.store.stats()
            #expect(stats.postbacks == 1)
            #expect(stats.conflicts == 1)
            let stored = try await collector.store.postbacks(transactionID: postback.transactionID)
            #expect(stored.map(\.fields.conversionValue) == [20])
            #expect(stored.map(\.endpoint) == [CollectorConfiguration.networkPath])
            // The operator sees it counted by the value that differed, in /stats and in /metrics.
            try await H.withAdmin(collector, transport) { admin in
                let stats = try await H.get(admin, "/stats").body
                #expect(stats.hasSuffix(#","duplicates":1,"conflicts":1,"#
                    + #""conflicts-by-field":{"coarse-value":0,"conversion-value":1,"country":0,"interaction":0}}"#), "\(stats)")
                let metrics = try await H.get(admin, "/metrics").body
                #expect(metrics.contains("# TYPE skan_postbacks_conflicts_total counter\n"))
                #expect(metrics.contains(#"skan_postbacks_conflicts_total{field="conversion-value"} 1"#))
                #expect(metrics.contains(#"skan_postbacks_conflicts_total{field="country"} 0"#))
            }
        }
    }
}
