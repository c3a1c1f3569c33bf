import Foundation

/// xoshiro256** seeded through SplitMix64: a small, fast generator whose output is fixed by its seed on every
/// platform and Swift release.
///
/// Why not the standard library's helpers: `Int.random(in:using:)` and `SystemRandomNumberGenerator` promise
/// no stable sequence, and a seed must give byte-identical simulations everywhere.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator for one seed.
    public init(seed: UInt64) {
        var mixer = seed
        s0 = Self.splitMix(&mixer)
        s1 = Self.splitMix(&mixer)
        s2 = Self.splitMix(&mixer)
        s3 = Self.splitMix(&mixer)
    }

    /// A generator for one numbered stream of a seed (a chunk of devices), independent of the others.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = seed ^ 0x5EED_5CA1_AB1E_0000
        _ = Self.splitMix(&mixer)
        var streamMixer = stream &* 0xD1B5_4A32_D192_ED03 &+ Self.splitMix(&mixer)
        self.init(seed: Self.splitMix(&streamMixer))
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// A uniform double in `0..<1`, from the top 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        p >= 1 || (p > 0 && unit() < p)
    }

    /// A uniform integer in `0..<bound` (multiply-high; the bias is below 2⁻³⁰ for the bounds used here).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform integer in `range`.
    public mutating func integer(in range: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        if span == 0 { return Int64(bitPattern: next()) }
        return range.lowerBound + Int64(next().multipliedFullWidth(by: span).high)
    }

    /// A uniform double in `range`.
    public mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// A version-4 UUID from this generator, so that nonces and transaction ids repeat with the seed.
    public mutating func uuid() -> UUID {
        let high = next(), low = next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// Picks an index with probability proportional to its weight.
    public mutating func weighted(_ cumulative: [Double]) -> Int {
        let target = unit() * (cumulative.last ?? 0)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > target { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
