import Foundation
import SKANCore

/// A whole run: devices in deterministic chunks on every core, postbacks signed by the simulated Apple, all of
/// it streamed out in send-time order.
///
/// Chunk `i` always holds the same devices and draws from stream `i` of the seed, so the output is byte-identical
/// for a seed whatever the number of threads.
public struct Simulation: Sendable {
    /// Devices per chunk: small enough to spread over cores and keep a chunk's records small, large enough that
    /// the merge has few runs.
    public static let chunkSize = 4096
    /// Above this many devices, runs go to temporary files instead of memory.
    public static let inMemoryDeviceLimit = 50_000

    /// The prepared campaign.
    public let setup: CampaignSetup
    /// The seed.
    public let seed: UInt64
    /// How many devices.
    public let devices: Int

    /// A run of `devices` devices of a campaign.
    public init(setup: CampaignSetup, seed: UInt64, devices: Int) {
        self.setup = setup
        self.seed = seed
        self.devices = devices
    }

    /// How many chunks the devices make.
    public var chunkCount: Int { (devices + Self.chunkSize - 1) / Self.chunkSize }

    /// The devices of one chunk, unsigned, for tests that check device rules across seeds.
    public func outcomes(ofChunk chunk: Int) -> [DeviceSimulator.Outcome] {
        var random = SeededRandom(seed: seed, stream: UInt64(chunk))
        let device = DeviceSimulator(setup: setup, seed: seed)
        let count = min(Self.chunkSize, devices - chunk * Self.chunkSize)
        return (0..<count).map { _ in device.run(&random) }
    }

    /// One device's story (impressions, install, launch, calls, postbacks), for explaining a result: the device
    /// is run exactly as in the full run, only with its steps written down. `nil` for a number outside the run.
    public func trace(device: Int) -> [TraceEvent]? {
        guard (0..<devices).contains(device) else { return nil }
        let chunk = device / Self.chunkSize
        var random = SeededRandom(seed: seed, stream: UInt64(chunk))
        let simulator = DeviceSimulator(setup: setup, seed: seed)
        for _ in 0..<device % Self.chunkSize { _ = simulator.run(&random) }
        return simulator.run(&random, tracing: true).trace
    }

    /// Simulates, signs and encodes one chunk: its sorted run and its summary.
    func run(chunk: Int) throws(SimulatorError) -> (run: [UInt8], summary: SimulationSummary) {
        var summary = SimulationSummary()
        var planned: [PlannedPostback] = []
        for (offset, outcome) in outcomes(ofChunk: chunk).enumerated() {
            summary.add(outcome)
            for var postback in outcome.postbacks {
                postback.device = chunk * Self.chunkSize + offset
                planned.append(postback)
            }
        }
        let order = planned.indices.sorted { a, b in
            planned[a].sendAt != planned[b].sendAt ? planned[a].sendAt < planned[b].sendAt : a < b
        }
        let signatures = try sign(planned, in: order)
        var encoder = RunMerger.Encoder()
        for (position, index) in order.enumerated() {
            let plan = planned[index]
            let copy = plan.developerCopy ? setup.developerCopyDestination(for: plan.framework) : nil
            let signature = signatures.signatures[position]
            switch plan.body {
            case .skadnetwork(var postback):
                postback.attributionSignature = Data(signature).base64EncodedString()
                encoder.append(plan, copyDestination: copy) { PostbackBytes.append(postback, to: &$0) }
            case .adAttributionKit(let postback):
                let signingInput = signatures.inputs[position]
                encoder.append(plan, copyDestination: copy) { postback.appendBody(signingInput: signingInput, signature: signature, to: &$0) }
            }
        }
        return (encoder.bytes, summary)
    }

    /// Signs a chunk's postbacks in send order, each signer's in one batch call (which shares the nonce inversion
    /// among many): the signing inputs and the signatures, by position in `order`.
    private func sign(_ planned: [PlannedPostback], in order: [Int]) throws(SimulatorError)
        -> (inputs: [[UInt8]], signatures: [[UInt8]]) {
        var inputs = [[UInt8]](repeating: [], count: order.count)
        // Positions for the P-256 signer, the P-192 one, and the AdAttributionKit one.
        var positions: [[Int]] = [[], [], []]
        for (position, index) in order.enumerated() {
            switch planned[index].body {
            case .skadnetwork(let postback):
                inputs[position] = postback.signedString(postback.version.layout).bytes
                positions[postback.version.curve == .p192 ? 1 : 0].append(position)
            case .adAttributionKit(let postback):
                guard setup.appleAAK != nil else {
                    throw SimulatorError(.invalidKey, "$.apple-keys.aak: an AdAttributionKit ad won, and the campaign names no key to sign its postback")
                }
                var signingInput = setup.aakHeaderSegment
                postback.appendSigningInput(payloadTo: &signingInput)
                inputs[position] = signingInput
                positions[2].append(position)
            }
        }
        var signatures = [[UInt8]](repeating: [], count: order.count)
        for (signer, group) in positions.enumerated() where !group.isEmpty {
            let messages = group.map { inputs[$0] }
            let signed: [[UInt8]]
            do {
                switch signer {
                case 0: signed = try setup.appleP256.signatures(for: messages)
                case 1: signed = try setup.appleP192.signatures(for: messages)
                default: signed = try setup.appleAAK!.rawSignatures(for: messages)
                }
            } catch {
                throw SimulatorError(.outputFailure, signer == 2 ? "cannot sign an AdAttributionKit postback: \(error.reason)"
                                                                 : "cannot sign a postback: \(error.reason)")
            }
            for (position, signature) in zip(group, signed) { signatures[position] = signature }
        }
        return (inputs, signatures)
    }

    /// Runs every chunk on all cores, then calls `emit` for each record in send-time order (a developer copy
    /// right after its winning postback). `progress` hears the number of devices done after each chunk.
    public func run(progress: @escaping @Sendable (Int) -> Void = { _ in },
                    emit: (SimulatedRecord) throws -> Void) throws -> SimulationSummary {
        let results = ChunkResults(count: chunkCount, spill: devices > Self.inMemoryDeviceLimit)
        defer { results.removeFiles() }
        let chunkCount = chunkCount
        Parallel.forEach(0..<chunkCount) { chunk in
            guard !results.hasFailed else { return }
            do {
                let (run, summary) = try self.run(chunk: chunk)
                try results.store(chunk: chunk, run: run, summary: summary)
                progress(min(Self.chunkSize, devices - chunk * Self.chunkSize))
            } catch {
                results.fail(error)
            }
        }
        if let failure = results.failure { throw failure }
        let cursors = try results.cursors()
        let tampering = RelayTampering(rate: setup.campaign.settings.disagreeingCopyRate, seed: seed)
        var disagreeing = 0
        try RunMerger.merge(cursors) { record in
            var out = SimulatedRecord(sendAt: record.sendAt, destination: setup.destinations[record.destination],
                                      recipient: .adNetwork, postback: record.json, device: record.device,
                                      installedAt: record.installedAt, launchedAt: record.launchedAt,
                                      preparedAt: record.preparedAt, lastUpdateAt: record.lastUpdateAt, tier: record.tier)
            if record.copyDestination != nil, tampering.applies(device: record.device, sendAt: record.sendAt),
               let changed = RelayTampering.changed(record.json) {
                out.postback = changed
                disagreeing += 1
            }
            try emit(out)
            if let copy = record.copyDestination {
                out.destination = setup.destinations[copy]
                out.recipient = .developer
                out.postback = record.json
                try emit(out)
            }
        }
        var summary = results.summary
        summary.disagreeingCopies = disagreeing
        return summary
    }
}

/// What the chunk workers hand back, guarded by a lock.
///
/// `@unchecked Sendable`: every stored property is read and written under `lock`.
private final class ChunkResults: @unchecked Sendable {
    private let lock = NSLock()
    private var runs: [[UInt8]?]
    private var summaries: [SimulationSummary?]
    private var error: (any Error)?
    private let folder: URL?

    init(count: Int, spill: Bool) {
        runs = Array(repeating: nil, count: count)
        summaries = Array(repeating: nil, count: count)
        folder = spill ? FileManager.default.temporaryDirectory.appendingPathComponent("skan-simulate-\(UUID().uuidString)") : nil
        if let folder { try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    }

    var hasFailed: Bool { lock.withLock { error != nil } }
    var failure: (any Error)? { lock.withLock { error } }

    func fail(_ error: any Error) { lock.withLock { if self.error == nil { self.error = error } } }

    private func file(_ chunk: Int) -> URL? { folder?.appendingPathComponent("run-\(chunk)") }

    func store(chunk: Int, run: [UInt8], summary: SimulationSummary) throws {
        if let url = file(chunk) {
            do {
                try Data(run).write(to: url)
            } catch {
                throw SimulatorError(.outputFailure, "cannot write a temporary run to \(url.path): \((error as NSError).localizedDescription)")
            }
            lock.withLock { summaries[chunk] = summary }
        } else {
            lock.withLock {
                runs[chunk] = run
                summaries[chunk] = summary
            }
        }
    }

    var summary: SimulationSummary {
        lock.withLock {
            var total = SimulationSummary()
            for summary in summaries { if let summary { total.add(summary) } }
            return total
        }
    }

    func cursors() throws -> [RunMerger.Cursor] {
        try lock.withLock {
            try runs.indices.map { chunk in
                if let url = file(chunk) {
                    guard let handle = try? FileHandle(forReadingFrom: url) else {
                        throw SimulatorError(.outputFailure, "cannot read back the temporary run \(url.path)")
                    }
                    return RunMerger.Cursor(file: handle)
                }
                let cursor = RunMerger.Cursor(bytes: runs[chunk] ?? [])
                runs[chunk] = nil
                return cursor
            }
        }
    }

    func removeFiles() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}
