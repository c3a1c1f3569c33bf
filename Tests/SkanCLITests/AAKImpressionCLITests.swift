import Foundation
import SKANTestSupport
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
            #expect(bad.stdout.contains("invalid-signature — the signature does not match"))
            let mixed = try await SkanProcess.run(["sign", "--framework", "aak", "--version", "4.0", "--key",
                                                   "Keys/test/ad-network-private-key.pem", "--ad-network-id", "x",
                                                   "--source-identifier", "52", "--itunes-item-id", "1"])
            #expect(mixed.status == 64 || mixed.status == 2)
            #expect(mixed.stderr.contains("--version is for SKAdNetwork impressions"))
        }

        @Test("--framework takes adattributionkit and its alias aak alike, and refuses another name in one line naming it")
        func frameworkNames() async throws {
            let options = ["--key", "Keys/test/ad-network-private-key.pem", "--ad-network-id", "example.adattributionkit",
                           "--source-identifier", "5239", "--itunes-item-id", "525463029"]
            for name in ["adattributionkit", "aak"] {
                let signed = try await SkanProcess.run(["sign", "--framework", name] + options)
                #expect(signed.status == 0 && signed.stdout.hasPrefix(#"{"jws":"eyJ"#), "\(name): \(signed.stderr)")
            }
            let bad = try await SkanProcess.run(["sign", "--framework", "xyz"] + options)
            #expect(bad.status == 2)
            #expect(bad.stderr == "skan: The value 'xyz' is invalid for '--framework <framework>'. Please provide one of 'skadnetwork', 'adattributionkit' or 'aak'.\n")
        }

        @Test("a CSV of AdAttributionKit impressions signs row by row, as SKAdNetwork's does")
        func adAttributionKitRows() async throws {
            let directory = try TemporaryFolder.current.url
            let csv = directory.appendingPathComponent("impressions.csv").path
            try "ad-network-id,source-identifier,itunes-item-id,eligible-for-re-engagement\nexample.adattributionkit,5239,525463029,true\nexample.adattributionkit,52390,525463029,\n"
                .write(toFile: csv, atomically: true, encoding: .utf8)
            let result = try await SkanProcess.run(["sign", "--framework", "adattributionkit", "--key",
                                                    "Keys/test/ad-network-private-key.pem", "--input", csv])
            #expect(result.status == 1)
            #expect(result.stdout.split(separator: "\n").count == 1 && result.stdout.hasPrefix(#"{"jws":"eyJ"#))
            #expect(result.stderr == "skan: \(csv) row 3: source-identifier must have 2 to 4 digits (0...9999), got 52390\n")
        }
    }
}
