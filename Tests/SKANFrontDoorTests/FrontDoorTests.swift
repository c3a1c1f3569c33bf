import Foundation
import Logging
import SKANCollector
import SKANDashboard
import SKANHTTP
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// The same slow clients against every listener (issue 32): each one is behind the same front door, so each closes
/// an idle connection, a request never finished and a client that never reads its replies, and holds connections
/// past its budget back, saying so in the log. Timeouts are injected short, so a case takes about a second.
@Suite("Front door: slow clients on every listener", .serialized, .timeLimit(.minutes(1)))
struct FrontDoorTests {
    /// The slack a loaded two-core machine needs over a timeout before a close counts as late.
    static let slack = Duration.seconds(3)

    /// A request whose head is whole and whose body stops after one byte of its hundred.
    static func partial(_ listener: ListenerUnderTest) -> String {
        let path = switch listener {
        case .collectorDevice: "/postbacks"
        case .signerPrivate: "/v1/impressions"
        case .signerPublic: "/.well-known/skadnetwork/get-signed-payload"
        case .collectorAdmin, .serveDashboard, .dashboard: "/healthz"
        }
        return "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    }

    @Test("an idle connection is closed after the idle timeout", arguments: ListenerUnderTest.allCases)
    func idle(listener: ListenerUnderTest) async throws {
        let idle = Duration.milliseconds(300)
        let closed = try await listener.serve(timeouts: .init(idle: idle, request: .seconds(10), write: .seconds(10))) { port in
            try SlowClient(port: port).waitForClose(patience: .seconds(10))
        }
        let after = try #require(closed, "\(listener) kept an idle connection open for 10 s")
        print("front door: \(listener) closed an idle connection after \(after)")
        #expect(after >= idle - .milliseconds(50) && after < idle + Self.slack, "\(after)")
    }

    @Test("a request never finished is closed after the request timeout", arguments: ListenerUnderTest.allCases)
    func partialRequest(listener: ListenerUnderTest) async throws {
        let request = Duration.milliseconds(300)
        let closed = try await listener.serve(timeouts: .init(idle: .seconds(10), request: request, write: .seconds(10))) { port in
            let client = try SlowClient(port: port)
            client.send(Self.partial(listener))
            return client.waitForClose(patience: .seconds(10))
        }
        let after = try #require(closed, "\(listener) kept a half-sent request open for 10 s")
        print("front door: \(listener) closed a half-sent request after \(after)")
        #expect(after < request + Self.slack, "\(after)")
    }

    @Test("a client that pipelines and never reads is closed within the write timeout, memory bounded",
          arguments: ListenerUnderTest.allCases)
    func neverReads(listener: ListenerUnderTest) async throws {
        let write = Duration.milliseconds(500)
        let before = SlowClient.residentBytes()
        let trims = MemoryReturn.process.trims
        let (closed, sent, peak) = try await listener.serve(
            // 32 KiB unsent at most: with the kernel's own send buffer (up to 4 MB on loopback) the time until replies
            // back up at all depends on how fast this debug build answers; the write timeout starts then.
            timeouts: .init(idle: .seconds(20), request: .seconds(20), write: write, unsentLimit: 32 << 10)) { port in
            let client = try SlowClient(port: port, receiveBuffer: 4096)
            let (closed, sent) = client.pipelineWithoutReading(listener.pipelined, patience: .seconds(15))
            return (closed, sent, SlowClient.residentBytes())
        }
        let growth = (peak - before) >> 20
        print("front door: \(listener) closed a client that never reads after \(closed.map { "\($0)" } ?? "never (15 s)"),"
              + " \(sent) requests sent, resident memory +\(growth) MB")
        let after = try #require(closed, "\(listener) kept answering a client that never reads for 15 s")
        // The idle and request timeouts are 20 s: a close this early is the write timeout's. The slack is wider than
        // elsewhere: the 32 KiB must fill first, at the pace of a debug build beside other suites.
        #expect(after < write + Self.slack * 2, "\(after)")
        #expect(growth < 64, "resident memory grew \(growth) MB")
        // What the connection held is freed with it, and the process's return hands it back to the system.
        for _ in 0..<100 where MemoryReturn.process.trims == trims { try await Task.sleep(for: .milliseconds(50)) }
        #expect(MemoryReturn.process.trims > trims, "no trim within 5 s of the close")
    }

    @Test("connections past the budget wait, a line says so, and they are served once one closes",
          arguments: ListenerUnderTest.allCases)
    func budget(listener: ListenerUnderTest) async throws {
        let lines = RecordingLogHandler.Lines()
        let limit = 4
        // What this listener may hold: the budget less the shares kept for the process's other listeners (each is
        // guaranteed a quarter of it here: half the budget, split between two).
        let others = listener.listenersInProcess - 1
        let holds = limit - others * max(1, limit / (2 * listener.listenersInProcess))
        let (held, waited, served) = try await listener.serve(timeouts: .init(idle: .seconds(30)), limit: limit,
                                                               logger: RecordingLogHandler.logger(lines)) { port in
            // Each is served once before the next connects, so that it is accepted on its own: the server accepts
            // in batches, and a batch could take one past the budget. Generous: a loaded two-core machine can take
            // seconds to accept and answer.
            var held: [SlowClient] = []
            for _ in 0..<holds {
                let client = try SlowClient(port: port)
                guard client.exchange(ListenerUnderTest.probe, patience: .seconds(20)) != nil else { break }
                held.append(client)
            }
            let extra = try SlowClient(port: port)
            let waited = extra.exchange(ListenerUnderTest.probe, patience: .seconds(1)) == nil
            let count = held.count
            held.removeAll()
            return (count, waited, extra.reply(patience: .seconds(20)) != nil)
        }
        print("front door: \(listener) held \(held) connections of a budget of \(limit); the next one waited: \(waited),"
              + " then was served once one closed: \(served)")
        #expect(held == holds)
        #expect(waited, "a connection past the budget was served at once")
        #expect(served, "the waiting connection was not served once another closed")
        #expect(lines.all.contains { $0.contains("connection budget reached") }, "\(lines.all)")
    }

    @Test("a flood of idle connections on one listener leaves another listener of the process its share")
    func noStarvation() async throws {
        let lines = RecordingLogHandler.Lines()
        let logger = RecordingLogHandler.logger(lines)
        let configuration = CollectorConfiguration(port: 0, idleTimeout: .seconds(30), maximumConnections: 12)
        let collector = try Collector(configuration: configuration,
                                      store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                      verifier: TestPostbacks.verifier, logger: logger)
        let dashboard = try await Dashboard(reader: EmptyReader())
        // The dashboard beside the collector in its one service group, as `skan serve --dashboard-port` runs it:
        // through its front door.
        var composition = collector.composition()
        composition.add(DashboardServer(dashboard: dashboard, access: .loopback, port: 0, logger: logger,
                                        frontDoor: collector.frontDoor))
        let (flooded, answered) = try await composition.serve { bound in
            let (dashboardPort, device, admin) = (bound["dashboard"] ?? 0, bound["device"] ?? 0, bound["admin"] ?? 0)
            // Three listeners share 12, each guaranteed 2: the dashboard may hold 8, and the ninth waits.
            var held: [SlowClient] = []
            for _ in 0..<8 {
                let client = try SlowClient(port: dashboardPort)
                guard client.exchange(ListenerUnderTest.probe, patience: .seconds(20)) != nil else { break }
                held.append(client)
            }
            let ninth = try SlowClient(port: dashboardPort)
            let waited = ninth.exchange(ListenerUnderTest.probe, patience: .seconds(1)) == nil
            let deviceReply = try SlowClient(port: device).exchange(ListenerUnderTest.probe, patience: .seconds(10))
            let adminReply = try SlowClient(port: admin).exchange(ListenerUnderTest.probe, patience: .seconds(10))
            return (waited ? held.count : held.count + 1, [deviceReply, adminReply].map { $0?.hasPrefix("HTTP/1.1 200") == true })
        }
        print("front door: the dashboard held \(flooded) of 12; device and admin /healthz answered: \(answered)")
        #expect(flooded == 8)
        #expect(answered == [true, true])
    }
}
