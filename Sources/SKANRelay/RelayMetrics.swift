import CoreMetrics
import Foundation
import Metrics
import Prometheus
import SKANStore

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
                oldestAge: CoreMetrics.Gauge(label: "skan_relay_oldest_age_seconds", dimensions: dimensions, factory: factory))
        }
        self.series = series
    }

    func record(_ settlement: OutboxSettlement, destination: String) {
        guard let series = series[destination] else { return }
        switch settlement {
        case .sent: series.sent.increment()
        case .retry: series.retried.increment()
        case .dead: series.dead.increment()
        case .release: break
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
