import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    @Suite("skan signer")
    struct SignerCLITests {
        @Test("a private key file that group or others may read is refused, naming the file and its mode")
        func loosePermissions() async throws {
            let folder = try TemporaryFolder.current.url
            let key = folder.appendingPathComponent("network.pem")
            try FileManager.default.copyItem(at: SkanProcess.packageRoot.appendingPathComponent("Keys/test/ad-network-private-key.pem"), to: key)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: key.path)
            let result = try await SkanProcess.run(["signer", "--key", key.path, "--port", "0"])
            #expect(result.status == 2)
            #expect(result.stderr == "skan: --key \(key.path): the key file has mode 640; a private key must not be open to group or others (chmod 600 \(key.path))\n")
        }
    }
}
