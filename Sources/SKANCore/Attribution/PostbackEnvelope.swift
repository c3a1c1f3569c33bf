import Foundation

/// A JSON object that carries a postback of either framework beside metadata: `{"send-at": …, "destination": …, "postback": {…}}`.
///
/// The simulator writes its output this way so that the postback stays exactly as it goes on the wire,
/// and test vectors wrap Apple's examples the same way.
public enum PostbackEnvelope {
    /// The key holding the postback.
    public static let postbackKey = "postback"
    /// The key of the send time as milliseconds since 1970 (exact, what `skan simulate` writes beside the text).
    public static let sendAtMillisecondsKey = "send-at-ms"
    /// The key of the send time as ISO 8601 text.
    public static let sendAtKey = "send-at"

    /// The raw JSON text of the wrapped postback, when `members` are an envelope rather than a postback.
    public static func innerPostback(_ members: [JSONMember]) -> String? {
        // Lengths first: a postback's dozen keys are each compared here, and most differ in length.
        func isKey(_ member: JSONMember, _ key: String) -> Bool {
            member.key.utf8.count == key.utf8.count && member.key == key
        }
        // A postback of either framework may itself carry a `postback` extra; one with a signature member is
        // a postback, not an envelope.
        guard let member = members.first(where: { isKey($0, postbackKey) }),
              !members.contains(where: { member in Framework.allCases.contains { isKey(member, $0.signatureField) } }),
              case .object(let raw) = member.value else { return nil }
        return raw
    }

    /// When the device sent the wrapped postback, in milliseconds since 1970, if `bytes` are an envelope that says.
    ///
    /// `send-at-ms` is preferred because it is exact; `send-at` text (`2026-03-02T14:05:09.123Z`) is the fallback
    /// for envelopes written by hand. A bare postback, or an envelope without a readable time, gives `nil`.
    public static func sendAtMilliseconds(of bytes: some Collection<UInt8>) -> Int64? {
        guard case .success(let members) = JSONObjectReader.members(of: bytes),
              innerPostback(members) != nil else { return nil }
        if let member = members.first(where: { $0.key == sendAtMillisecondsKey }),
           case .number(let text) = member.value, let milliseconds = Int64(text) {
            return milliseconds
        }
        if let member = members.first(where: { $0.key == sendAtKey }), case .string(let text) = member.value {
            return isoMilliseconds(text)
        }
        return nil
    }

    /// The key of who the wrapped postback was sent to: `ad-network`, or `developer` for the advertiser's copy.
    public static let recipientKey = "recipient"

    /// What an envelope says of its postback's arrival, read in one pass: the send time as
    /// ``sendAtMilliseconds(of:)`` reads it (when `readsSendAt`), and whether it is the advertiser's developer copy
    /// (`"recipient":"developer"`). A bare postback gives `(nil, false)`.
    public static func arrival(of bytes: some Collection<UInt8>, readsSendAt: Bool) -> (sendAtMilliseconds: Int64?, isDeveloperCopy: Bool) {
        guard case .success(let members) = JSONObjectReader.members(of: bytes),
              innerPostback(members) != nil else { return (nil, false) }
        let isDeveloperCopy = members.contains { member in
            guard member.key == recipientKey, case .string(let text) = member.value else { return false }
            return text == "developer"
        }
        guard readsSendAt else { return (nil, isDeveloperCopy) }
        if let member = members.first(where: { $0.key == sendAtMillisecondsKey }),
           case .number(let text) = member.value, let milliseconds = Int64(text) {
            return (milliseconds, isDeveloperCopy)
        }
        if let member = members.first(where: { $0.key == sendAtKey }), case .string(let text) = member.value {
            return (isoMilliseconds(text), isDeveloperCopy)
        }
        return (nil, isDeveloperCopy)
    }

    private static func isoMilliseconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) {
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) * 1000 }
    }
}
