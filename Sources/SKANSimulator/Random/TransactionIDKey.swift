/// Folds a run's identity (the campaign and the seed) into every transaction id it draws.
///
/// Why: every campaign draws from the same generator streams for a seed, so two campaigns run with one seed
/// drew equal ids wherever their draws lined up, and a collector fed both counted distinct postbacks as
/// duplicates. The generator's two draws for an id go through a keyed permutation of 128 bits: within a run ids
/// stay distinct (a permutation of distinct draws), across runs they look independent, and the draws the rest
/// of the device makes do not move, so everything but the ids stays as it was for a seed.
public struct TransactionIDKey: Sendable, Hashable {
    private let high: UInt64, low: UInt64
    private let round0: UInt64, round1: UInt64, round2: UInt64, round3: UInt64

    /// The key of one run: `campaign` is ``Campaign/identity``, `seed` the run's seed.
    public init(campaign: UInt64, seed: UInt64) {
        var state = campaign ^ 0x7A_11D5_0000_0000
        _ = Self.splitMix(&state)
        state ^= seed &* 0x9E37_79B9_7F4A_7C15
        high = Self.splitMix(&state)
        low = Self.splitMix(&state)
        round0 = Self.splitMix(&state)
        round1 = Self.splitMix(&state)
        round2 = Self.splitMix(&state)
        round3 = Self.splitMix(&state)
    }

    /// A four-round Feistel network over (`high`, `low`): a bijection for a fixed key.
    func permute(_ first: UInt64, _ second: UInt64) -> (UInt64, UInt64) {
        var left = first ^ high, right = second ^ low
        (left, right) = (right, left ^ Self.mix(right &+ round0))
        (left, right) = (right, left ^ Self.mix(right &+ round1))
        (left, right) = (right, left ^ Self.mix(right &+ round2))
        (left, right) = (right, left ^ Self.mix(right &+ round3))
        return (left, right)
    }

    /// SplitMix64's finalizer: every input bit reaches every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return mix(state)
    }

    /// FNV-1a over bytes: the identity of a campaign file. Not cryptographic; two different campaigns sharing
    /// one by chance is a 2⁻⁶⁴ event.
    public static func fingerprint(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
