import SKANCore

/// A relay that changes a value Apple does not sign in some ad-network postbacks on their way (campaign setting
/// `disagreeing-copy-rate`), so that the advertiser's developer copy of the same postback disagrees with what the
/// network's endpoint receives: the case a collector's conflict rows exist for. The signature still holds.
struct RelayTampering: Sendable {
    /// The share of postbacks with a developer copy whose ad-network copy is changed.
    let rate: Double
    let seed: UInt64

    /// Whether the ad-network copy of `device`'s postback sent at `sendAt` is changed: a draw of its own, fixed by the
    /// seed, so that a run is the same whatever the number of threads.
    func applies(device: Int, sendAt: Int64) -> Bool {
        guard rate > 0 else { return false }
        var random = SeededRandom(seed: seed ^ 0x7E1A_7C09_D15A_6EE0,
                                  stream: UInt64(truncatingIfNeeded: device) &* 0x9E37_79B9 ^ UInt64(bitPattern: sendAt))
        return random.chance(rate)
    }

    /// `body` with its fine value moved up by one (63 becomes 0), or else its coarse value moved to the next one;
    /// `nil` when it has neither (a relay has nothing to change), or is not a JSON object.
    static func changed(_ body: [UInt8]) -> [UInt8]? {
        guard case .success(var members) = JSONObjectReader.members(of: body) else { return nil }
        if let index = members.firstIndex(where: { $0.key == "conversion-value" }),
           case .number(let text) = members[index].value, let value = Int(text) {
            members[index] = JSONMember(key: members[index].key, value: .number(String((value + 1) % 64)))
        } else if let index = members.firstIndex(where: { $0.key == "coarse-conversion-value" }),
                  case .string(let text) = members[index].value, let value = CoarseValue(rawValue: text) {
            let next: CoarseValue = switch value {
            case .low: .medium
            case .medium: .high
            case .high: .low
            }
            members[index] = JSONMember(key: members[index].key, value: .string(next.rawValue))
        } else {
            return nil
        }
        var writer = JSONWriter()
        for member in members { writer.raw(member.key, member.value.jsonText) }
        return Array(writer.json.utf8)
    }
}
