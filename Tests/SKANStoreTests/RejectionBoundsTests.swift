import Foundation
import GRDB
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// A flood of refusals must not fill a disk: every value of a kept refusal is bounded, not only its body.
@Suite("Refusals are bounded in bytes", .temporaryFolder)
struct RejectionBoundsTests {
    @Test("a refusal whose every value is 65 KB stores no row larger than the cap's stated maximum")
    func rowBound() async throws {
        let path = try TemporaryFolder.current.path("bounds-\(UUID().uuidString).sqlite")
        let cap = RejectionCap()
        let huge = String(repeating: "v", count: 65_000)
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal, rejectionCap: cap)
        let entry = StoreEntry.rejected(RejectedPostback(
            status: "unsupported-version", field: huge, reason: "version \(huge) is unknown", version: huge,
            transactionID: huge, adNetworkID: huge, rawBody: Array(huge.utf8), receivedAt: Date(), endpoint: huge))
        _ = try await store.write([entry])
        try await store.close()

        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let row = try #require(try queue.read { db in
            try Row.fetchOne(db, sql: """
                SELECT length(CAST(field AS BLOB)) + length(CAST(reason AS BLOB)) + length(CAST(version AS BLOB))
                       + length(CAST(transaction_id AS BLOB)) + length(CAST(ad_network_id AS BLOB))
                       + length(CAST(endpoint AS BLOB)) + length(raw_body) + length(CAST(received_at AS BLOB))
                       + length(CAST(status AS BLOB)) + 16 AS bytes,
                       version, body_length
                FROM rejected_postbacks
                """)
        })
        let bytes: Int = row["bytes"]
        let version: String = row["version"]
        #expect(bytes <= cap.maximumRowBytes, "\(bytes) bytes in a row")
        #expect(cap.maximumRowBytes <= 5_000)
        #expect(version.utf8.count <= cap.maximumValueBytes && version.hasSuffix("…[65000 bytes]"))
        #expect(row["body_length"] == 65_000)
    }
}
