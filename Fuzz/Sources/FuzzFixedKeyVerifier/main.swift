import Crypto
import Foundation
import SKANCore

/// Differential target for issue #40: the fixed-key table verifier against swift-crypto's verify on the same
/// (digest, r ‖ s), trapping on the first disagreement. Both must say valid or not valid alike on every input.
///
/// Input: byte 0 picks the key and the mode, the rest is data.
/// - even: a pool signature (a fresh key's, made at start, over varied digests: valid as made) edited by the
///   data read as (position, xor) byte pairs over its 96 bytes `digest ‖ r ‖ s`; no pairs leaves it valid, so
///   libFuzzer explores near-valid signatures, high bits of r and s, and digests around n.
/// - odd: the data itself as `digest ‖ r ‖ s` (zero-padded to 96 bytes), under the fresh key or Apple's P-256 key.

/// A digest of any 32 bytes, so that the fuzzer reaches digests SHA-256 would not give (zero, n, 2^256 - 1).
struct FuzzDigest: Digest {
    static var byteCount: Int { 32 }
    let bytes: [UInt8]
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    var description: String { bytes.map { String(format: "%02x", $0) }.joined() }
}

private let signer = P256.Signing.PrivateKey()
private let apple = try! P256.Signing.PublicKey(derRepresentation: Data(base64Encoded: KeyRing.AppleKey.p256Base64)!)
private let verifiers = [signer.publicKey, apple].map { key in
    let verifier = FixedKeyVerifier(publicKey: key)
    // Comparing swift-crypto with itself would find nothing: refuse to run rather than report a hollow pass.
    guard verifier.route == .table else { fatalError("the table path is not available here (route \(verifier.route))") }
    return verifier
}

/// 64 valid (digest, r ‖ s) by `signer`: random digests, and digests at the edges of reduction mod n.
private let pool: [[UInt8]] = {
    let order: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51]
    var digests = [order, [UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xff, count: 32)]
    var generator = SystemRandomNumberGenerator()
    while digests.count < 64 { digests.append((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
    return digests.map { digest in digest + [UInt8](try! signer.signature(for: FuzzDigest(bytes: digest)).rawRepresentation) }
}()

nonisolated(unsafe) private var counts = (inputs: 0, valid: 0)
nonisolated(unsafe) private var registered = false

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFixedKeyVerifier(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if !registered {
        registered = true
        atexit(printCounts)
    }
    guard size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    var bytes: [UInt8]
    var keyIndex = 0
    if input[0] & 1 == 0 {
        bytes = pool[Int(input[0] >> 1) % pool.count]
        var index = 1
        while index + 1 < size {
            bytes[Int(input[index]) % 96] ^= input[index + 1]
            index += 2
        }
    } else {
        keyIndex = Int(input[0] >> 1) % verifiers.count
        bytes = Array(input.dropFirst().prefix(96))
        bytes += [UInt8](repeating: 0, count: 96 - bytes.count)
    }
    let verifier = verifiers[keyIndex]
    let digest = FuzzDigest(bytes: Array(bytes[..<32]))
    let signature = Array(bytes[32...])
    let table = verifier.isValidSignature(signature, digest: digest)
    let reference = (try? P256.Signing.ECDSASignature(rawRepresentation: signature))
        .map { verifier.publicKey.isValidSignature($0, for: digest) } ?? false
    guard table == reference else {
        fatalError("table says \(table), swift-crypto \(reference): key \(keyIndex) digest \(digest) signature \(FuzzDigest(bytes: signature))")
    }
    counts.inputs += 1
    if reference { counts.valid += 1 }
    return 0
}

/// `atexit` takes a C function: no captures, so it reads the globals.
private func printCounts() {
    let line = "verifier: \(counts.inputs) inputs compared, \(counts.valid) valid in both, 0 disagreements\n"
    FileHandle.standardError.write(Data(line.utf8))
}
