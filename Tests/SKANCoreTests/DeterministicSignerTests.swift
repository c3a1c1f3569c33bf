import Foundation
@testable import SKANCore
import Testing

@Suite("Deterministic signer")
struct DeterministicSignerTests {
    static func simulatedAppleKey(_ curve: String) throws -> ECPrivateKey {
        let url = Fixtures.keys.appendingPathComponent("test/simulated-apple-\(curve)-private-key.pem")
        return try ECPrivateKey(pem: String(decoding: try Fixtures.data(url), as: UTF8.self))
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Expected values computed outside Swift and OpenSSL, by a plain affine-coordinate implementation of the same
    /// derivation (k = HMAC-SHA256(private scalar, SHA-256(message) ‖ counter) mod n) from the key files. They
    /// pin the simulator's promise that a seed gives the same bytes in every release, and both need DER's zero
    /// byte in front of an integer with its high bit set.
    @Test("signatures match an independent computation of the nonce and the equation", arguments: [
        ("p256", "3045022023a0c6d20e02a2ff50c523a25eb599ab8f08fb998f3c6444b7c682f06eaf11650221009c9b2b65f5ed88c967e42b18686083a575df095d68bc29bb452e51b3dd4737ed"),
        ("p192", "30350219008096287e37eb01c5ffa800407994a30558bb0df47388dc0f02187b0c28c1fff63eebda506188e889c0f623aa783055b21288"),
    ])
    func knownAnswer(curve: String, expected: String) throws {
        let signer = try DeterministicSigner(key: try Self.simulatedAppleKey(curve))
        #expect(Self.hex(try signer.signature(for: Array("4.0\u{2063}example".utf8))) == expected)
    }

    @Test("every signature verifies, whatever the lengths of r and s", arguments: ECCurve.allCases)
    func manyMessagesVerify(curve: ECCurve) throws {
        let key = try ECPrivateKey.generate(curve: curve)
        let signer = try DeterministicSigner(key: key)
        // 200 messages give r or s a high bit (a padded DER integer) or a short length many times over.
        for index in 0..<200 {
            let message = Array("message \(index)".utf8)
            let signature = try signer.signature(for: message)
            #expect(key.publicKey.isValidSignature(Data(signature), for: message), "message \(index)")
        }
    }

    @Test("a batch signs each message as one call does, across batch boundaries and in both forms",
          arguments: ["p256", "p192"])
    func batchesMatchOneByOne(curve: String) throws {
        let signer = try DeterministicSigner(key: try Self.simulatedAppleKey(curve))
        // Lengths 0, 1, a full batch and one more than two, so the shared inversion runs over every shape.
        for count in [0, 1, DeterministicSigner.batchLimit, 2 * DeterministicSigner.batchLimit + 1] {
            let messages = (0..<count).map { Array("postback \($0) of \(count)".utf8) }
            #expect(try signer.signatures(for: messages) == messages.map { try signer.signature(for: $0) }, "\(count) messages")
            #expect(try signer.rawSignatures(for: messages) == messages.map { try signer.rawSignature(for: $0) }, "\(count) messages")
        }
    }

    @Test("signing from many threads at once gives what one thread gives")
    func concurrentCallsShareNothing() throws {
        let signer = try DeterministicSigner(key: try Self.simulatedAppleKey("p256"))
        let messages = (0..<256).map { Array("postback \($0)".utf8) }
        let serial = try messages.map { try signer.signature(for: $0) }
        let results = ResultSlots(count: messages.count)
        DispatchQueue.concurrentPerform(iterations: messages.count) { index in
            results.set(index, try? signer.signature(for: messages[index]))
        }
        #expect(results.values == serial.map { Optional($0) })
    }
}

/// Slots written once each from concurrent iterations, read after they all finish.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [[UInt8]?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: [UInt8]?) { lock.withLock { slots[index] = value } }

    var values: [[UInt8]?] { lock.withLock { slots } }
}
