import Foundation
import SKANCore
import Testing

@Suite("Key loading")
struct KeyLoadingTests {
    static let testKeys = Fixtures.keys.appendingPathComponent("test")

    func text(_ name: String) throws -> String {
        try String(contentsOf: Self.testKeys.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("SEC1, PKCS#8, PUBLIC KEY PEM and bare Base64 all load, on both curves", arguments: [
        ("ad-network-private-key.pem", "ad-network-public-key.pem", ECCurve.p256),
        ("simulated-apple-p192-private-key.pem", "simulated-apple-p192-public-key.pem", ECCurve.p192),
        ("p192-network-private-key.pem", "p192-network-public-key.pem", ECCurve.p192),
    ])
    func formats(privateFile: String, publicFile: String, curve: ECCurve) throws {
        let sec1 = try text(privateFile)
        #expect(sec1.contains("BEGIN EC PRIVATE KEY"))
        let key = try ECPrivateKey(pem: sec1, source: privateFile)
        #expect(key.curve == curve)
        let publicKey = try ECPublicKey(text: try text(publicFile), source: publicFile)
        #expect(publicKey.spkiDER == key.publicKey.spkiDER)
        #expect(try ECPublicKey(text: publicKey.base64).spkiDER == publicKey.spkiDER)
        #expect(try ECPublicKey(text: publicKey.pemRepresentation).spkiDER == publicKey.spkiDER)

        let pkcs8 = try openssl(["pkcs8", "-topk8", "-nocrypt"], input: sec1)
        #expect(pkcs8.contains("BEGIN PRIVATE KEY"))
        #expect(try ECPrivateKey(pem: pkcs8).publicKey.spkiDER == publicKey.spkiDER)

        let message = Array("sign me".utf8)
        let signature = try key.signature(for: message)
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: Array("sign me!".utf8)))
    }

    @Test("a secp256k1 key is refused with the file name and the curve found")
    func wrongCurve() throws {
        let pem = try openssl(["ecparam", "-name", "secp256k1", "-genkey", "-noout"], input: "")
        let error = #expect(throws: SKANError.self) { try ECPrivateKey(pem: pem, source: "network.pem") }
        #expect(error?.code == .unsupportedCurve)
        #expect(error?.reason.contains("network.pem") == true)
        #expect(error?.reason.contains("secp256k1") == true)
    }

    @Test("garbage, a public key where a private key is needed, and an RSA key get clear errors")
    func garbage() throws {
        let notKey = #expect(throws: SKANError.self) { try ECPublicKey(text: "hello world", source: "x.pem") }
        #expect(notKey?.reason.hasPrefix("x.pem:") == true)
        let publicOnly = #expect(throws: SKANError.self) {
            try ECPrivateKey(pem: try text("ad-network-public-key.pem"), source: "pub.pem")
        }
        #expect(publicOnly?.code == .notAPrivateKey)
        let rsa = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], input: "")
        let rsaError = #expect(throws: SKANError.self) { try ECPrivateKey(pem: rsa, source: "rsa.pem") }
        #expect(rsaError?.code == .unsupportedCurve)
        #expect(rsaError?.reason.contains("RSA") == true)
    }

    @Test("a generated key writes SEC1 PEM that reads back to the same key")
    func generateRoundTrip() throws {
        let key = try ECPrivateKey.generate()
        #expect(key.sec1PEM.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        #expect(try ECPrivateKey(pem: key.sec1PEM).publicKey.spkiDER == key.publicKey.spkiDER)
    }

    func openssl(_ arguments: [String], input: String) throws -> String {
        try Fixtures.openssl(arguments, input: input).output
    }
}
