import ArgumentParser
import Foundation
import SKANCore
import SKANSimulator

/// `skan simulate`: runs a campaign through simulated iPhones and writes or delivers their postbacks.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate devices of a campaign and the postbacks they send.",
        discussion: """
            Reads a campaign file (Samples/campaigns/), simulates devices as iOS behaves (impressions checked \
            with each network's key, winner rules, conversion timers and windows, privacy tiers) on a virtual \
            clock, and signs each postback with the simulated Apple keys the campaign names. Writes JSON lines \
            in send-time order (--out; each line an envelope skan verify reads) and/or posts each ad network \
            postback to a collector (--post), in send-time order, retrying a non-200 reply every 24 simulated \
            hours up to nine times. Prints a summary on standard error at the end.
            """
    )

    @Option(help: "The campaign file (JSON).")
    var campaign: String

    @Option(help: "The seed: the same seed gives byte-identical output.")
    var seed: UInt64 = 1

    @Option(help: "How many devices (default: the campaign's \"devices\").")
    var devices: Int?

    @Option(help: "Write the postbacks as JSON lines to this file ('-' for standard output).")
    var out: String?

    @Option(help: "POST each ad network postback to this URL, in send-time order.")
    var post: String?

    @Option(help: "With --post: simulated seconds per real second (86400 = a day a second). Default: no waiting.")
    var speed: Double?

    @Option(help: "Print one device's timeline (its number, the envelope's \"device\") instead of running all.")
    var trace: Int?

    func validate() throws {
        if let devices, devices < 1 { throw ValidationError("--devices must be at least 1, got \(devices)") }
        if let speed, !(speed > 0) { throw ValidationError("--speed must be above 0, got \(speed)") }
        if speed != nil && post == nil { throw ValidationError("--speed applies to --post only") }
        if let trace, trace < 0 { throw ValidationError("--trace must be a device number of 0 or more, got \(trace)") }
        if trace != nil && (out != nil || post != nil) { throw ValidationError("--trace prints one device; leave out --out and --post") }
    }

    func run() throws {
        let setup: CampaignSetup
        do { setup = try CampaignFile.load(path: campaign) } catch { throw CLIError(error.reason) }
        let count = devices ?? setup.campaign.devices
        let simulation = Simulation(setup: setup, seed: seed, devices: count)
        if let trace {
            guard let events = simulation.trace(device: trace) else {
                throw CLIError("--trace: device \(trace) is not in the run (devices 0...\(count - 1))")
            }
            let header = "device \(trace) of \(setup.campaign.name) (version \(setup.campaign.version), seed \(seed))"
            print(([header] + TraceEvent.lines(events)).joined(separator: "\n"))
            return
        }
        let progress = ProgressCounter(total: count, enabled: count >= 20_000)
        var writer = try out.map { path throws(CLIError) in try LineWriter(path: path) }
        var delivery: PostbackDelivery?
        if let post {
            guard let url = URL(string: post), url.scheme == "http" || url.scheme == "https" else {
                throw CLIError("--post must be an http(s) URL, got \(post)")
            }
            let clock: any DeliveryClock = speed.map { ScaledClock(speed: $0) } ?? ImmediateClock()
            delivery = PostbackDelivery(transport: HTTPPostbackTransport(url: url), clock: clock)
        }
        let summary: SimulationSummary
        do {
            summary = try simulation.run(progress: { progress.add($0) }) { record in
                try writer?.write(record)
                if record.recipient == .adNetwork { try delivery?.enqueue(record) }
            }
            try writer?.close()
            try delivery?.finish()
        } catch let error as SimulatorError {
            throw CLIError(error.reason)
        }
        progress.finish()
        var lines = ["campaign           \(setup.campaign.name) (version \(setup.campaign.version), seed \(seed))"]
        lines += summary.lines
        if let delivery {
            let report = delivery.report
            lines.append("delivered          \(report.delivered) to \(post ?? ""), \(report.retries) retries, \(report.failed) given up")
        }
        if let out, out != "-" { lines.append("written            \(out)") }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
