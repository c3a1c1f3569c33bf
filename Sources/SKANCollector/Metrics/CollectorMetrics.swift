import CoreMetrics
import Metrics
import Prometheus
import SKANCore
import SKANStore

/// The collector's counters and latency histogram, in a Prometheus registry of its own.
///
/// Metrics are made through this registry's factory rather than the process-wide `MetricsSystem`, so that
/// several collectors (tests run many) never share or fight over one global bootstrap.
public struct CollectorMetrics: Sendable {
    /// The registry `GET /metrics` prints.
    public let registry: PrometheusCollectorRegistry
    private let received: CoreMetrics.Counter
    /// By framework: SKAdNetwork and AdAttributionKit compete for the same installs, so their shares matter.
    private let accepted: ByFramework
    private let duplicate: ByFramework
    private let storeFailures: CoreMetrics.Counter
    /// Keyed by outcome, version label and framework; made up front so that a body cannot mint new series.
    private let rejected: [String: CoreMetrics.Counter]
    private let latency: CoreMetrics.Timer

    /// Version labels: the known versions, and one label for everything else, so a flood of made-up versions
    /// cannot grow the label set without bound.
    static let versionLabels = Framework.allCases.flatMap(\.versions) + ["unknown"]

    /// A fresh registry with every series at zero.
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Postback requests take well under a millisecond to tens of milliseconds; the default buckets are coarser.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(5),
        ]
        received = CoreMetrics.Counter(label: "skan_postbacks_received_total", factory: factory)
        accepted = ByFramework("skan_postbacks_accepted_total", factory: factory)
        duplicate = ByFramework("skan_postbacks_duplicate_total", factory: factory)
        storeFailures = CoreMetrics.Counter(label: "skan_store_failures_total", factory: factory)
        var rejected: [String: CoreMetrics.Counter] = [:]
        let refusals = PostbackReply.Outcome.allCases.filter { ![.accepted, .duplicate, .unavailable].contains($0) }
        for outcome in refusals {
            for version in Self.versionLabels {
                for framework in Framework.allCases {
                    rejected[outcome.rawValue + "|" + version + "|" + framework.rawValue] = CoreMetrics.Counter(
                        label: "skan_postbacks_rejected_total",
                        dimensions: [("reason", outcome.rawValue), ("version", version), ("framework", framework.rawValue)],
                        factory: factory)
                }
            }
        }
        self.rejected = rejected
        latency = CoreMetrics.Timer(label: "skan_postback_request_duration_seconds", factory: factory)
    }

    /// Counts one postback request and its outcome, and records how long it took since `start`. A body that was
    /// never read (too large, wrong media type) counts under SKAdNetwork, the framework a body defaults to.
    func record(_ result: PostbackPipeline.Result, since start: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - start).components
        let framework = result.framework ?? .skadnetwork
        received.increment()
        switch result.reply.outcome {
        case .accepted: accepted[framework].increment()
        case .duplicate: duplicate[framework].increment()
        case .unavailable: storeFailures.increment()
        default:
            let label = result.version.flatMap { Self.versionLabels.contains($0) ? $0 : nil } ?? "unknown"
            rejected[result.reply.outcome.rawValue + "|" + label + "|" + framework.rawValue]?.increment()
        }
        latency.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }

    /// One counter per framework, found by a switch: a dictionary hashed the framework on every request.
    private struct ByFramework: Sendable {
        private let skadnetwork: CoreMetrics.Counter
        private let adAttributionKit: CoreMetrics.Counter

        init(_ label: String, factory: PrometheusMetricsFactory) {
            func counter(_ framework: Framework) -> CoreMetrics.Counter {
                CoreMetrics.Counter(label: label, dimensions: [("framework", framework.rawValue)], factory: factory)
            }
            skadnetwork = counter(.skadnetwork)
            adAttributionKit = counter(.adAttributionKit)
        }

        subscript(framework: Framework) -> CoreMetrics.Counter {
            switch framework {
            case .skadnetwork: skadnetwork
            case .adAttributionKit: adAttributionKit
            }
        }
    }

    /// The registry in Prometheus text format, then the store's series when `stats` is given.
    public func exposition(stats: StoreStats? = nil) -> String {
        let text = registry.emitToString()
        guard let stats else { return text }
        return text + (text.isEmpty || text.hasSuffix("\n") ? "" : "\n") + Self.conflictSeries(stats)
    }

    /// `skan_postbacks_conflicts_total{field="…"}`: the conflicts kept (``StoreStats/conflictsByField``), one series
    /// per compared value, at zero too. Read from the store's counters at each scrape, not counted by this process:
    /// a conflict is found in the writer's transaction, and the store's count survives restarts. On a PostgreSQL
    /// fleet every collector reports the whole store's count, as it does the relay's queue (`max`, not `sum`, across
    /// instances). A conflict counts under each value that differed.
    static func conflictSeries(_ stats: StoreStats) -> String {
        let name = "skan_postbacks_conflicts_total"
        var text = "# TYPE \(name) counter\n"
        for value in RepeatTable.compared {
            text += "\(name){field=\"\(value.name)\"} \(stats.conflictsByField[value.name] ?? 0)\n"
        }
        return text
    }
}
