import ArgumentParser
import Foundation
import SKANCore

/// The trusted-key options shared by every command that verifies postbacks (`verify`, `serve`, `ingest`).
struct KeyOptions: ParsableArguments {
    @Option(name: .customLong("trust-key"), help: "Also trust this public key (PEM or Base64 file). Repeatable.")
    var trustKeys: [String] = []

    @Option(name: .customLong("apple-key-p256"), help: "Use this P-256 key instead of Apple's (versions 2.1 and later).")
    var appleKeyP256: String?

    @Option(name: .customLong("apple-key-p192"), help: "Use this P-192 key instead of Apple's (versions 1.0 and 2.0).")
    var appleKeyP192: String?

    @Option(name: .customLong("aak-key"), help: ArgumentHelp(
        "Trust FILE's P-256 public key for AdAttributionKit postbacks whose JWS kid is KID (KID=FILE). Repeatable.",
        discussion: "A kid already trusted (Apple's apple-cas-identifier/0) is replaced.", valueName: "kid=file"))
    var aakKeys: [String] = []

    @Flag(name: .customLong("aak-development"),
          help: "Also trust Apple's two AdAttributionKit development keys (apple-development-identifier/0 and /1).")
    var aakDevelopment = false

    /// Apple's keys, with the replacements and additions the options name.
    func keyRing() throws(CLIError) -> KeyRing {
        var ring = KeyRing.apple
        for (path, curve) in [(appleKeyP256, ECCurve.p256), (appleKeyP192, .p192)] {
            guard let path else { continue }
            let key = try KeyFiles.publicKey(path, option: "--apple-key-\(curve == .p256 ? "p256" : "p192")")
            guard key.curve == curve else {
                throw CLIError("--apple-key-\(curve == .p256 ? "p256" : "p192") \(path): the key is \(key.curve), expected \(curve)")
            }
            ring.replaceKeys(onCurveOf: TrustedKey(name: URL(fileURLWithPath: path).lastPathComponent, key: key))
        }
        for path in trustKeys {
            ring.add(TrustedKey(name: URL(fileURLWithPath: path).lastPathComponent, key: try KeyFiles.publicKey(path, option: "--trust-key")))
        }
        if aakDevelopment {
            for key in KeyRing.appleAdAttributionKitDevelopment { ring.add(key) }
        }
        for value in aakKeys {
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex, value.index(after: equals) != value.endIndex else {
                throw CLIError("--aak-key \(value): expected KID=FILE, e.g. apple-cas-identifier/0=Keys/apple/skadnetwork-p256.pem")
            }
            let kid = String(value[..<equals]), path = String(value[value.index(after: equals)...])
            let key = try KeyFiles.publicKey(path, option: "--aak-key")
            guard key.curve == .p256 else {
                throw CLIError("--aak-key \(kid)=\(path): the key is \(key.curve), expected P-256 (ES256)")
            }
            ring.add(TrustedKey(name: URL(fileURLWithPath: path).lastPathComponent, key: key, kid: kid))
        }
        return ring
    }
}
