import ArgumentParser
import Foundation
import SKANCore

/// `skan keygen`: makes an ad network's P-256 key pair.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an ad network's P-256 key pair for signing impressions.",
        discussion: """
            Writes DIR/private-key.pem (SEC1 EC PRIVATE KEY, as 'openssl ecparam -name prime256v1 -genkey -noout' \
            writes) and DIR/public-key.pem, then prints the Base64 public key that you register with Apple. \
            The key is always P-256, the curve Apple asks for today; 'skan sign' and 'skan verify-impression' \
            also take the P-192 keys that networks registered in mid-2020, but a new network should not make one. \
            Refuses to overwrite an existing private key unless --force is given.
            """
    )

    @Option(help: "Folder to write the two PEM files into (created if missing).")
    var out: String

    @Flag(help: "Overwrite an existing private-key.pem.")
    var force = false

    func run() throws {
        let folder = URL(fileURLWithPath: out)
        let privateURL = folder.appendingPathComponent("private-key.pem")
        let publicURL = folder.appendingPathComponent("public-key.pem")
        if !force && FileManager.default.fileExists(atPath: privateURL.path) {
            throw CLIError("\(privateURL.path) exists; pass --force to replace it (the old key is then lost)")
        }
        let key: ECPrivateKey
        do { key = try ECPrivateKey.generate(curve: .p256) } catch { throw CLIError(error) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(key.sec1PEM.utf8).write(to: privateURL, options: .atomic)
            // The private key is a secret: owner read/write only.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: privateURL.path)
            try Data(key.publicKey.pemRepresentation.utf8).write(to: publicURL, options: .atomic)
        } catch {
            throw CLIError("cannot write keys to \(out): \(KeyFiles.describe(error))")
        }
        print("wrote \(privateURL.path) (keep it secret) and \(publicURL.path)")
        print("public key to register with Apple:")
        print(key.publicKey.base64)
    }
}
