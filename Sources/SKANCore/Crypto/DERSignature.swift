import Foundation

/// Reads an ECDSA signature in DER (`SEQUENCE { r INTEGER, s INTEGER }`, as Apple sends it in
/// `attribution-signature`) into the fixed-width `r ‖ s` form that swift-crypto verifies.
///
/// swift-crypto's own `ECDSASignature(derRepresentation:)` parses into a tree and pads through a generic
/// `Data.append` whose failing dynamic casts look up protocol conformances: about 10,000 instructions per postback
/// under callgrind; this reader and the raw-representation init take about half that. It applies the same DER
/// rules (tests compare the two on valid, mutated and random input) and allocates nothing.
enum DERSignature {
    /// Writes `r ‖ s`, each left-padded with zeros to `width` bytes, into `raw` (which holds `2 * width` bytes).
    /// Returns false for anything that is not strict DER or whose integers do not fit `width` bytes:
    /// long-form or mismatched lengths, trailing bytes, non-minimal or negative integers.
    static func read(_ der: UnsafeRawBufferPointer, width: Int, into raw: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(raw.count == 2 * width, "raw must hold two integers of width bytes")
        // Every valid length here is under 128, so only DER's short form can be valid: a long form would need a
        // length of 128 or more, which two integers of at most `width + 1` bytes cannot reach for P-256 or P-192.
        guard der.count >= 2, der[0] == 0x30, der[1] < 0x80, Int(der[1]) == der.count - 2 else { return false }
        var offset = 2
        for half in 0..<2 {
            guard let integer = readInteger(der, at: &offset), integer.count <= width else { return false }
            let start = half * width
            let padding = width - integer.count
            for index in 0..<padding { raw[start + index] = 0 }
            for index in 0..<integer.count { raw[start + padding + index] = der[integer.lowerBound + index] }
        }
        return offset == der.count
    }

    /// Whether `der` is a strict DER signature whose integers fit `width` bytes, read as ``read(_:width:into:)``
    /// reads it, for callers that explain a refusal rather than verify.
    static func isStrict(_ der: some ContiguousBytes, width: Int) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 2 * width, alignment: 1) { raw in
            der.withUnsafeBytes { read($0, width: width, into: raw) }
        }
    }

    /// Reads one non-negative INTEGER at `offset`, returning the range of its magnitude bytes (a leading zero
    /// that only marks the value positive is left out) and moving `offset` past it.
    private static func readInteger(_ der: UnsafeRawBufferPointer, at offset: inout Int) -> Range<Int>? {
        guard offset + 2 <= der.count, der[offset] == 0x02, der[offset + 1] < 0x80 else { return nil }
        let length = Int(der[offset + 1])
        let start = offset + 2
        guard length > 0, start + length <= der.count else { return nil }
        offset = start + length
        let first = der[start]
        // X.690 8.3.2: no leading zero unless the next byte's top bit needs it; a top bit set is a negative number.
        if first & 0x80 != 0 { return nil }
        guard first == 0, length > 1 else { return start..<offset }  // the value zero is its one zero byte
        guard der[start + 1] & 0x80 != 0 else { return nil }
        return start + 1..<offset
    }
}
