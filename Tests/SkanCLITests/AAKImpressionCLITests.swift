import Foundation
import Testing

extension CommandLineSuites {
    @Suite("AdAttributionKit impressions on the command line")
    struct AAKImpressionCLITests {
        @Test("skan sign --framework aak prints a JWS that verify-impression accepts with the network's key only")
        func signThenVerify() async throws {
            let signed = try await SkanProcess.run([
                "sign", "--framework", "aak", "--key", "Keys/test/ad-network-private-key.pem",
                "--ad-network-id", "example.adattributionkit", "--source-identifier", "5239", "--itunes-item-id", "525463029",
            ])
            #expect(signed.status == 0, "\(signed.stderr)")
            #expect(signed.stdout.hasPrefix(#"{"jws":"eyJ"#))
            let good = try await SkanProcess.run(["verify-impression", "--public-key", "Keys/test/ad-network-public-key.pem", "-"],
                                                 stdin: signed.stdout)
            #expect(good.status == 0)
            #expect(good.stdout.contains("valid framework=adattributionkit kid=example.adattributionkit"))
            let bad = try await SkanProcess.run(["verify-impression", "--public-key", "Keys/test/rival-network-public-key.pem", "-"],
                                                stdin: signed.stdout)
            #expect(bad.status == 1)
            #expect(bad.stdout.contains("invalid — the signature does not match"))
            let mixed = try await SkanProcess.run(["sign", "--framework", "aak", "--version", "4.0", "--key",
                                                   "Keys/test/ad-network-private-key.pem", "--ad-network-id", "x",
                                                   "--source-identifier", "52", "--itunes-item-id", "1"])
            #expect(mixed.status == 64 || mixed.status == 2)
            #expect(mixed.stderr.contains("--version is for SKAdNetwork impressions"))
        }
    }
}
