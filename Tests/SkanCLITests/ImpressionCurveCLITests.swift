import Foundation
import SKANCore
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan sign` and `skan verify-impression` with the keys networks really hold: P-256 and, for networks that
    /// registered in mid-2020, P-192 (spec §1). Another curve is a usage error; a signature that is not DER is named.
    @Suite("Impression keys on the command line")
    struct ImpressionCurveCLITests {
        static let p192Private = "Keys/test/p192-network-private-key.pem"
        static let p192Public = "Keys/test/p192-network-public-key.pem"

        static func sign(key: String, _ extra: [String] = []) async throws -> SkanProcess.Result {
            try await SkanProcess.run(["sign", "--key", key, "--version", "3.0", "--ad-network-id", "legacy.skadnetwork",
                                 "--campaign-id", "42", "--itunes-item-id", "525463029", "--source-app-id", "0",
                                 "--fidelity-type", "0"] + extra)
        }

        @Test("a P-192 key signs (SEC1 and PKCS#8) and its public key verifies (PEM and Base64); a P-256 key refuses it")
        func p192SignAndVerify() async throws {
            let folder = try TemporaryFolder.current.url
            let sec1 = SkanProcess.packageRoot.appendingPathComponent(Self.p192Private)
            let key = try ECPrivateKey(pem: try String(contentsOf: sec1, encoding: .utf8))
            // The same key as PKCS#8, the other form a network may hold it in.
            let pkcs8 = folder.appendingPathComponent("pkcs8.pem")
            #expect(try Self.openssl(["pkcs8", "-topk8", "-nocrypt", "-in", sec1.path, "-out", pkcs8.path]) == 0)
            #expect(try String(contentsOf: pkcs8, encoding: .utf8).contains("BEGIN PRIVATE KEY"))

            for keyFile in [Self.p192Private, pkcs8.path] {
                let signed = try await Self.sign(key: keyFile)
                #expect(signed.status == 0, "\(signed.stderr)")
                for publicKey in [Self.p192Public, key.publicKey.base64] {
                    let verified = try await SkanProcess.run(["verify-impression", "--public-key", publicKey, "-"], stdin: signed.stdout)
                    #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
                    #expect(verified.stdout.contains("valid version=3.0 kind=view-through"))
                }
                let wrong = try await SkanProcess.run(["verify-impression", "--public-key", "Keys/test/ad-network-public-key.pem", "-"],
                                                stdin: signed.stdout)
                #expect(wrong.status == 1)
                #expect(wrong.stdout.contains("invalid-signature — the signature does not match"), "\(wrong.stdout)")
            }
        }

        @Test("a P-384 key is a usage error naming its curve and the two accepted, for sign and verify-impression")
        func p384IsUsageError() async throws {
            let folder = try TemporaryFolder.current.url
            let privateKey = folder.appendingPathComponent("p384.pem").path
            let publicKey = folder.appendingPathComponent("p384-public.pem").path
            #expect(try Self.openssl(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", privateKey]) == 0)
            #expect(try Self.openssl(["ec", "-in", privateKey, "-pubout", "-out", publicKey]) == 0)
            let signed = try await Self.sign(key: Self.p192Private)
            let results = [
                (privateKey, try await Self.sign(key: privateKey)),
                (publicKey, try await SkanProcess.run(["verify-impression", "--public-key", publicKey, "-"], stdin: signed.stdout)),
            ]
            for (path, result) in results {
                #expect(result.status == 2, "\(result.stdout)")
                #expect(result.stdout.isEmpty, "never an invalid-signature verdict")
                #expect(result.stderr.contains("\(path): the key is on secp384r1 (P-384), expected prime256v1 (P-256) or prime192v1 (P-192)"),
                        "\(result.stderr)")
            }
        }

        @Test("an impression whose signature is not DER is refused with a reason that says so", arguments: [
            Self.p192Public, "Keys/test/ad-network-public-key.pem",
        ])
        func notDER(publicKey: String) async throws {
            let signed = try await Self.sign(key: publicKey.contains("p192") ? Self.p192Private : "Keys/test/ad-network-private-key.pem")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(signed.stdout.utf8)) as? [String: Any])
            var broken = object
            broken["signature"] = Data("not a signature".utf8).base64EncodedString()
            let input = String(decoding: try JSONSerialization.data(withJSONObject: broken), as: UTF8.self)
            let result = try await SkanProcess.run(["verify-impression", "--public-key", publicKey, "-"], stdin: input)
            #expect(result.status == 1)
            #expect(result.stdout.contains("invalid-signature — the signature is not a DER ECDSA signature"), "\(result.stdout)")
        }

        @Test("keygen's help says it makes P-256 keys, the curve Apple asks for today")
        func keygenHelp() async throws {
            let help = try await SkanProcess.run(["keygen", "--help"])
            #expect(help.status == 0)
            // The help is wrapped to the terminal's width; compare words, not lines.
            let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("The key is always P-256, the curve Apple asks for today"), "\(help.stdout)")
        }

        /// Runs the `openssl` command line on files, returning its exit status.
        static func openssl(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }
}
