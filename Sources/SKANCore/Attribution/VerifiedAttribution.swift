/// A postback whose signature a trusted key checked, in framework-neutral terms, with the framework's own
/// detail for the output that shows it (`skan verify`'s layout and claimed fields).
public struct VerifiedAttribution: Sendable, Hashable {
    /// The framework that sent it.
    public let framework: Framework
    /// The fields, as both frameworks name them.
    public let fields: AttributionFields
    /// The name of the trusted key that verified it (`apple-p256` ...).
    public let keyName: String
    /// How the signature was checked, as one word for storage and logs: the SKAdNetwork field layout, or the
    /// AdAttributionKit key id.
    public let scheme: String
    /// A note on a valid postback (a fallback layout matched), or `nil`.
    public let note: String?
    /// What only one framework has.
    public let detail: Detail

    /// The framework-specific part of a verification.
    public enum Detail: Sendable, Hashable {
        /// SKAdNetwork's parsed postback, its layout, and its signed and claimed fields.
        case skadnetwork(VerifiedPostback)
        /// AdAttributionKit's parsed postback, its kid, and its signed and claimed fields.
        case adAttributionKit(VerifiedAAKPostback)
    }

    /// Makes a verified record.
    public init(framework: Framework, fields: AttributionFields, keyName: String, scheme: String, note: String?,
                detail: Detail) {
        self.framework = framework
        self.fields = fields
        self.keyName = keyName
        self.scheme = scheme
        self.note = note
        self.detail = detail
    }
}
