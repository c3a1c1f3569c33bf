import CoreMetrics
import Foundation
import Metrics
import Prometheus
import SKANStore
import Synchronization

/// The relay's series per destination, in the collector's Prometheus registry (`GET /metrics`):
/// `skan_relay_sent_total`, `skan_relay_retried_total`, `skan_relay_dead_total`, and the outbox's
/// `skan_relay_queued`, `skan_relay_dead_letters` and `skan_relay_oldest_age_seconds`.
public struct RelayMetrics: Sendable {
    struct Series: Sendable {
        let sent: CoreMetrics.Counter
        let retried: CoreMetrics.Counter
        let dead: CoreMetrics.Counter
        let queued: CoreMetrics.Gauge
        let deadLetters: CoreMetrics.Gauge
        let oldestAge: CoreMetrics.Gauge
        /// The three counters' values, which Prometheus's counters do not give back (the dashboard's relay page).
        let tally: Tally
    }

    /// Settlements counted since start, readable while the relay runs.
    final class Tally: Sendable {
        let sent = Atomic<Int>(0)
        let retried = Atomic<Int>(0)
        let dead = Atomic<Int>(0)
    }

    private let series: [String: Series]

    /// Every series of `destinations` at zero, in `registry`.
    public init(registry: PrometheusCollectorRegistry, destinations: [String]) {
        let factory = PrometheusMetricsFactory(registry: registry)
        var series: [String: Series] = [:]
        for name in destinations {
            let dimensions = [("destination", name)]
            series[name] = Series(
                sent: CoreMetrics.Counter(label: "skan_relay_sent_total", dimensions: dimensions, factory: factory),
                retried: CoreMetrics.Counter(label: "skan_relay_retried_total", dimensions: dimensions, factory: factory),
                dead: CoreMetrics.Counter(label: "skan_relay_dead_total", dimensions: dimensions, factory: factory),
                queued: CoreMetrics.Gauge(label: "skan_relay_queued", dimensions: dimensions, factory: factory),
                deadLetters: CoreMetrics.Gauge(label: "skan_relay_dead_letters", dimensions: dimensions, factory: factory),
                oldestAge: CoreMetrics.Gauge(label: "skan_relay_oldest_age_seconds", dimensions: dimensions, factory: factory),
                tally: Tally())
        }
        self.series = series
    }

    func record(_ settlement: OutboxSettlement, destination: String) {
        guard let series = series[destination] else { return }
        switch settlement {
        case .sent:
            series.sent.increment()
            series.tally.sent.add(1, ordering: .relaxed)
        case .retry:
            series.retried.increment()
            series.tally.retried.add(1, ordering: .relaxed)
        case .dead:
            series.dead.increment()
            series.tally.dead.add(1, ordering: .relaxed)
        case .release: break
        }
    }

    /// Per destination, the entries sent, retried and made dead since start: what `skan_relay_sent_total`,
    /// `skan_relay_retried_total` and `skan_relay_dead_total` say, for the dashboard's relay page.
    public func counts() -> [String: (sent: Int, retried: Int, dead: Int)] {
        series.mapValues { series in
            (series.tally.sent.load(ordering: .relaxed), series.tally.retried.load(ordering: .relaxed),
             series.tally.dead.load(ordering: .relaxed))
        }
    }

    func record(_ depths: [OutboxDepth], now: Date) {
        let byName = Dictionary(depths.map { ($0.destination, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, series) in self.series {
            let depth = byName[name]
            series.queued.record(depth?.pending ?? 0)
            series.deadLetters.record(depth?.dead ?? 0)
            series.oldestAge.record(depth?.oldest.map { max(now.timeIntervalSince($0), 0) } ?? 0)
        }
    }
}
