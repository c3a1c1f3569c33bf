/// An impression signature version (spec §2.1). 2.1 signs like 2.0: it changed only Apple's postback key.
public typealias ImpressionVersion = SKANVersion

extension SKANVersion {
    /// Whether impressions of this version carry `source-identifier` (4.0) rather than `campaign-id`.
    public var usesSourceIdentifier: Bool { self >= .v4_0 }
    /// Whether the impression's signed string starts with `version` and carries `source-app-id` (2.0 and later).
    public var hasVersionAndSource: Bool { self >= .v2_0 }
    /// Whether `fidelity-type` is signed (2.2 and later), which is also when view-through ads exist.
    public var signsFidelity: Bool { self >= .v2_2 }
}
