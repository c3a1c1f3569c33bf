import Foundation
import SKANCore
import SKANStore

/// How `GET /postbacks/{transaction-id}` shows a stored postback: what the collector recorded, then the postback
/// exactly as received.
enum StoredPostbackJSON {
    static func json(_ stored: StoredPostback) -> String {
        var writer = JSONWriter()
        writer.string("received-at", stored.receivedAt)
        writer.string("key", stored.keyName)
        writer.string("layout", stored.layout)
        writer.string("endpoint", stored.endpoint)
        // The body parsed as a JSON object when it was verified, so it embeds as is; an envelope from ingest
        // embeds whole.
        writer.raw("postback", String(decoding: stored.rawBody, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        return writer.json
    }
}
