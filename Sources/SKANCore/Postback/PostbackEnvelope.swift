/// A JSON object that carries a postback beside metadata: `{"send-at": …, "destination": …, "postback": {…}}`.
///
/// The simulator writes its output this way so that the postback stays exactly as it goes on the wire,
/// and test vectors wrap Apple's examples the same way.
public enum PostbackEnvelope {
    /// The key holding the postback.
    public static let postbackKey = "postback"

    /// The raw JSON text of the wrapped postback, when `members` are an envelope rather than a postback.
    public static func innerPostback(_ members: [JSONMember]) -> String? {
        guard !members.contains(where: { $0.key == PostbackField.attributionSignature.key }),
              let member = members.first(where: { $0.key == postbackKey }),
              case .object(let raw) = member.value else { return nil }
        return raw
    }
}
