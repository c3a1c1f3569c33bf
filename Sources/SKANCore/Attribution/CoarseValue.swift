/// A 4.0 coarse conversion value.
public enum CoarseValue: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    case low, medium, high

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
