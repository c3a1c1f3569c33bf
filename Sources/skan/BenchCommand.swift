import ArgumentParser
import Crypto
import Foundation
import SKANCore
import Synchronization

/// `skan bench`: throughput figures for `Benchmarks/`, never part of `swift test`.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure verify and sign throughput (used by Benchmarks/core.sh).",
        subcommands: [CoreBench.self, PostbackFileBench.self, IngestBench.self, RelayBench.self]
    )
}

/// In-process throughput: JSON bytes → verdict on one thread and on every core, and signing.
struct CoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "core",
        abstract: "Print verify/s (P-256, P-192; one thread and all cores) and sign/s as JSON lines.")

    @Option(help: "Seconds per measurement.")
    var seconds: Double = 3

    @Option(help: ArgumentHelp("Run only this measure (repeatable): \(measures.joined(separator: ", ")).",
                               valueName: "measure"))
    var only: [String] = []

    @Option(help: "Thread counts for the verify measures (repeatable; default 1 and every core).")
    var threads: [Int] = []

    static let measures = ["verify-p256", "verify-p192", "verify-aak", "verify-signature-p256-table",
                           "verify-signature-p256-swift-crypto", "parse-only", "sign-impression-p256", "sign-p192",
                           "sign-deterministic-p256", "sign-deterministic-p192"]

    func validate() throws {
        if let unknown = only.first(where: { !Self.measures.contains($0) }) {
            throw ValidationError("--only: unknown measure '\(unknown)'; expected one of \(Self.measures.joined(separator: ", "))")
        }
        if let bad = threads.first(where: { $0 < 1 }) {
            throw ValidationError("--threads: \(bad) is not a thread count; expected 1 or more")
        }
    }

    private func wants(_ measure: String) -> Bool { only.isEmpty || only.contains(measure) }

    func run() throws {
        let p256 = try Self.signedPostbacks(version: .v4_0, count: 256)
        let p192 = try Self.signedPostbacks(version: .v2_0, count: 256)
        let aak = try Self.signedAAKPostbacks(count: 256)
        let verifier = AttributionVerifier(keyRing: try Self.simulatedAppleRing())
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for (name, bodies) in [("p256", p256), ("p192", p192), ("aak", aak)] where wants("verify-\(name)") {
            for threads in self.threads.isEmpty ? [1, cores] : self.threads {
                let rate = Self.measure(seconds: seconds, threads: threads) { index in
                    if !verifier.verify(bodies[index % bodies.count]).isValid { fatalError("benchmark postback did not verify") }
                }
                print(#"{"measure":"verify-\#(name)","threads":\#(threads),"per_second":\#(Int(rate))}"#)
            }
        }
        try measureSignatureRoutes(threadCounts: self.threads.isEmpty ? [1, cores] : self.threads)
        // The share of the work that is not the curve arithmetic: JSON parsing and the signed string.
        if wants("parse-only") {
            let parseRate = Self.measure(seconds: seconds, threads: 1) { index in
                if case .failure = Postback.parse(p256[index % p256.count]) { fatalError("benchmark postback did not parse") }
            }
            print(#"{"measure":"parse-only","threads":1,"per_second":\#(Int(parseRate))}"#)
        }
        if wants("sign-impression-p256") {
            let networkKey = try ECPrivateKey.generate(curve: .p256)
            let signer = ImpressionSigner(key: networkKey)
            let impression = Impression(version: .v4_0, adNetworkID: "example.skadnetwork", sourceIdentifier: 5239,
                                        itunesItemID: 525463029, sourceAppID: 0, timestamp: 1_700_000_000_000)
            let signRate = Self.measure(seconds: seconds, threads: 1) { _ in _ = try? signer.sign(impression) }
            print(#"{"measure":"sign-impression-p256","threads":1,"per_second":\#(Int(signRate))}"#)
        }
        if wants("sign-p192") {
            let legacy = try ECPrivateKey.generate(curve: .p192)
            let legacyRate = Self.measure(seconds: seconds, threads: 1) { _ in _ = try? legacy.signature(for: p192[0]) }
            print(#"{"measure":"sign-p192","threads":1,"per_second":\#(Int(legacyRate))}"#)
        }
        // The simulator's signer: the same curve arithmetic as openssl's sign, with an RFC 6979-style nonce.
        for (name, curve) in [("p256", ECCurve.p256), ("p192", ECCurve.p192)] where wants("sign-deterministic-\(name)") {
            let deterministic = try DeterministicSigner(key: try ECPrivateKey.generate(curve: curve))
            let rate = Self.measure(seconds: seconds, threads: 1) { index in
                _ = try? deterministic.signature(for: p256[index % p256.count])
            }
            print(#"{"measure":"sign-deterministic-\#(name)","threads":1,"per_second":\#(Int(rate))}"#)
        }
    }

    /// The signature check alone on one fixed key, both ways a trusted P-256 key can take (issue #40): the
    /// precomputed tables and swift-crypto's verify. The printed route says which one ran: a platform without
    /// the table path, or `SKAN_P256_TABLE=off`, shows swift-crypto on both lines.
    private func measureSignatureRoutes(threadCounts: [Int]) throws {
        let routes = [("table", true), ("swift-crypto", false)].filter { wants("verify-signature-p256-\($0.0)") }
        guard !routes.isEmpty else { return }
        let key = P256.Signing.PrivateKey()
        let digests = (0..<256).map { SHA256.hash(data: [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]) }
        let signatures = try digests.map { [UInt8](try key.signature(for: $0).rawRepresentation) }
        for (name, allowTable) in routes {
            let verifier = allowTable ? FixedKeyVerifier(publicKey: key.publicKey)
                : FixedKeyVerifier(publicKey: key.publicKey, allowTable: false)
            for threads in threadCounts {
                let rate = Self.measure(seconds: seconds, threads: threads) { index in
                    let slot = index % signatures.count
                    if !verifier.isValidSignature(signatures[slot], digest: digests[slot]) {
                        fatalError("benchmark signature did not verify")
                    }
                }
                print(#"{"measure":"verify-signature-p256-\#(name)","route":"\#(verifier.route)","threads":\#(threads),"per_second":\#(Int(rate))}"#)
            }
        }
    }

    /// Runs `work` on `threads` threads for about `seconds` and returns calls per second.
    static func measure(seconds: Double, threads: Int, _ work: @escaping @Sendable (Int) -> Void) -> Double {
        // Warm up caches and lazy state before the clock starts.
        for index in 0..<64 { work(index) }
        let batch = 256
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let start = DispatchTime.now().uptimeNanoseconds
        let counts = Parallel.map(Array(0..<threads)) { _ in
            var done = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                for index in 0..<batch { work(done + index) }
                done += batch
            }
            return done
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(counts.reduce(0, +)) / elapsed
    }

    static func simulatedAppleRing() throws -> KeyRing {
        var ring = KeyRing(try ["p192", "p256"].map { name in
            TrustedKey(name: "simulated-apple-\(name)", key: try KeyFiles.publicKey("Keys/test/simulated-apple-\(name)-public-key.pem", option: "bench key"))
        })
        ring.add(TrustedKey(name: "simulated-apple-aak", key: try KeyFiles.publicKey(aakKeyPath("public"), option: "bench key"),
                            kid: aakKid))
        return ring
    }

    /// The kid the benchmark's AdAttributionKit postbacks are signed under (trust it with `--aak-key`).
    static let aakKid = "simulated-apple-aak/0"
    static func aakKeyPath(_ half: String) -> String { "Keys/test/simulated-apple-aak-\(half)-key.pem" }

    /// Distinct AdAttributionKit postbacks signed with the simulated Apple AAK key, as JSON bytes.
    static func signedAAKPostbacks(count: Int) throws -> [[UInt8]] {
        let key = try KeyFiles.privateKey(aakKeyPath("private"), option: "bench key")
        return try (0..<count).map { index in
            var payload = JSONWriter()
            payload.integer("advertised-item-identifier", 525463029)
            payload.string("conversion-type", index % 7 == 0 ? "redownload" : "download")
            payload.string("marketplace-identifier", "com.apple.AppStore")
            payload.string("ad-network-identifier", "example123.adattributionkit")
            payload.string("impression-type", "app-impression")
            payload.integer("postback-sequence-index", index % 3)
            payload.string("source-identifier", String(1000 + index % 9000))
            payload.bool("did-win", true)
            payload.string("postback-identifier", UUID().uuidString.lowercased())
            if index % 3 != 0 { payload.integer("publisher-item-identifier", 1234567891) }
            var body = JSONWriter()
            body.string("jws-string", try CompactJWS.es256(payload: payload.json, kid: aakKid, key: key))
            body.integer("conversion-value", index % 64)
            body.string("ad-interaction-type", "click")
            return Array(body.json.utf8)
        }
    }

    /// Distinct postbacks signed with the simulated Apple key for the version's curve, as JSON bytes.
    static func signedPostbacks(version: PostbackVersion, count: Int) throws -> [[UInt8]] {
        let key = try KeyFiles.privateKey("Keys/test/simulated-apple-\(version.curve == .p192 ? "p192" : "p256")-private-key.pem", option: "bench key")
        return try (0..<count).map { index in
            var postback = Postback(
                version: version, adNetworkID: "example123.skadnetwork",
                campaignID: version < .v4_0 ? index % 100 + 1 : nil,
                sourceIdentifier: version < .v4_0 ? nil : String(1000 + index % 9000),
                appID: 525463029, transactionID: UUID().uuidString.lowercased(), redownload: index % 7 == 0,
                sourceAppID: index % 3 == 0 ? nil : 1234567891, fidelityType: version >= .v2_2 ? 1 : nil,
                didWin: version >= .v3_0 ? true : nil, postbackSequenceIndex: version >= .v4_0 ? index % 3 : nil,
                conversionValue: index % 64)
            postback.attributionSignature = Data(try key.signature(for: postback.signedString(version.layout).bytes)).base64EncodedString()
            return Array(postback.json.utf8)
        }
    }
}

/// Writes a JSON-lines file of distinct signed postbacks for whole-command benchmarks.
struct PostbackFileBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postbacks",
        abstract: "Write COUNT distinct postbacks signed with the simulated Apple keys (Keys/test) as JSON lines.",
        discussion: """
            --shape traffic (the default) mixes networks, frameworks, thousands of source identifiers, privacy \
            tiers, windows, values, non-winning postbacks, redownloads and days as a network's traffic does, \
            signed deterministically: the same --seed gives the same file. --shape single-key repeats one \
            source identifier and campaign (--version picks the version): a named best case, not the default.
            """)

    enum Shape: String, ExpressibleByArgument, CaseIterable {
        case traffic
        case singleKey = "single-key"
    }

    @Option(help: "How many postbacks.")
    var count = 200_000

    @Option(help: "traffic (a network's mix, the default) or single-key (one source identifier, a best case).")
    var shape: Shape = .traffic

    @Option(help: "With --shape single-key: the version (2.0 and 1.0 are P-192, later ones P-256), or aak.")
    var version = "4.0"

    @Option(help: "With --shape traffic: the share of AdAttributionKit postbacks, 0 to 1 (0 for builds before it).")
    var aakShare = 0.15

    @Option(help: "With --shape traffic: how many days the arrivals spread over.")
    var days = 30

    @Option(help: "With --shape traffic: the seed.")
    var seed: UInt64 = 1

    @Flag(help: "With --shape traffic: write bare postbacks (what a device posts) instead of envelopes with send-at-ms.")
    var bare = false

    @Option(help: "Output file.")
    var out: String

    func validate() throws {
        if count < 0 { throw ValidationError("--count must be 0 or more, got \(count)") }
        if !(0...1).contains(aakShare) { throw ValidationError("--aak-share must be between 0 and 1, got \(aakShare)") }
        if days < 1 { throw ValidationError("--days must be at least 1, got \(days)") }
    }

    func run() throws {
        let aak = version == "aak"
        guard aak || PostbackVersion(rawValue: version) != nil else {
            throw CLIError("--version: unknown version \(version); expected 1.0, 2.0 ... 4.0 or aak")
        }
        let version = PostbackVersion(rawValue: version) ?? .v4_0
        let handle = try LineWriter.open(out)
        defer { try? handle.close() }
        let traffic = TrafficShape(aakShare: aakShare, days: days)
        let keys = shape == .traffic ? try TrafficShape.Keys() : nil
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let chunk = 4096
        var written = 0
        while written < count {
            let size = min(chunk, count - written)
            let lines: [[UInt8]]
            if let keys {
                // One postback per index, in index order (Parallel.map keeps it).
                lines = Parallel.map(Array(written..<written + size)) { index in
                    (try? traffic.line(index, of: count, seed: seed, keys: keys, envelope: !bare)) ?? []
                }
            } else {
                let parts = Parallel.map(Array(0..<cores)) { _ -> [[UInt8]] in
                    let share = size / cores + 1
                    return (try? aak ? CoreBench.signedAAKPostbacks(count: share)
                                : CoreBench.signedPostbacks(version: version, count: share)) ?? []
                }
                lines = Array(parts.joined().prefix(size))
            }
            try write(lines, to: handle)
            written += lines.count
        }
    }

    private func write(_ lines: [[UInt8]], to handle: FileHandle) throws {
        guard !lines.isEmpty, !lines.contains(where: \.isEmpty) else {
            throw CLIError("cannot sign the benchmark's postbacks with the keys in Keys/test (run from the package's folder)")
        }
        var data = Data()
        for line in lines { data.append(contentsOf: line); data.append(0x0A) }
        handle.write(data)
    }
}

/// `skan ingest` with a synchronous main thread, for Benchmarks/budget.sh.
///
/// Why: an async command's main thread parks in libdispatch's signal wait (`sigsuspend`), and valgrind 3.19 crashes
/// there (every tool, `--tool=none` included), so `skan ingest` cannot be counted under callgrind as it is. This runs
/// the very same command, parsed from the same arguments, on Swift's concurrency threads while the main thread waits.
struct IngestBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Run `skan ingest ARGUMENTS...` with the main thread waiting (Benchmarks/budget.sh runs it under valgrind).",
        // A tool of the budget script's, with no options of its own: `skan ingest` documents them.
        shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough, help: "The arguments of `skan ingest`.")
    var arguments: [String] = []

    func run() throws {
        // Passed-through arguments include --help, which `skan ingest` would answer with the root command's help.
        if arguments.contains("--help") || arguments.contains("-h") {
            print(Self.helpMessage())
            return
        }
        let arguments = arguments
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        // The command's one top-level task, awaited by the semaphore below: a synchronous command has no async
        // context to make it a child of (that is this command's reason to be), and it never outlives `run()`.
        Task {
            do {
                let command = try IngestCommand.parse(arguments)
                try await command.run()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
