/// An SKAdNetwork version. Impressions and postbacks share the numbering; the extensions beside the
/// postback and impression types say what each version means for each (`PostbackVersion`, `ImpressionVersion`).
public enum SKANVersion: String, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    case v1_0 = "1.0"
    case v2_0 = "2.0"
    case v2_1 = "2.1"
    case v2_2 = "2.2"
    case v3_0 = "3.0"
    case v4_0 = "4.0"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.ordinal < rhs.ordinal
    }

    /// The version's position in ``allCases``, oldest first: a switch, where `allCases.firstIndex` would
    /// search an array on every comparison (versions are compared for every postback).
    public var ordinal: Int {
        switch self {
        case .v1_0: 0
        case .v2_0: 1
        case .v2_1: 2
        case .v2_2: 3
        case .v3_0: 4
        case .v4_0: 5
        }
    }

    public var description: String { rawValue }
}
