/// An impression signature version (spec §2.1). 2.1 signs like 2.0: it changed only Apple's postback key.
public enum ImpressionVersion: String, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    case v1_0 = "1.0"
    case v2_0 = "2.0"
    case v2_1 = "2.1"
    case v2_2 = "2.2"
    case v3_0 = "3.0"
    case v4_0 = "4.0"

    /// Whether impressions of this version carry `source-identifier` (4.0) rather than `campaign-id`.
    public var usesSourceIdentifier: Bool { self >= .v4_0 }
    /// Whether the signed string starts with `version` and carries `source-app-id` (2.0 and later).
    public var hasVersionAndSource: Bool { self >= .v2_0 }
    /// Whether `fidelity-type` is signed (2.2 and later), which is also when view-through ads exist.
    public var signsFidelity: Bool { self >= .v2_2 }

    /// The postback version a device sends for an impression of this version on a current OS.
    public var postbackVersion: PostbackVersion { PostbackVersion(rawValue: rawValue)! }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    public var description: String { rawValue }
}
