import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import SKANHTTP
import SKANTestSupport
import Synchronization
import Testing

/// `/livez` and `/readyz` (issue 38): every listener answers both, without a token; `/readyz` fails while the
/// migrations run and from the moment a graceful shutdown begins, while `/livez` keeps answering.
@Suite("Probes", .timeLimit(.minutes(1)))
struct ProbeTests {
    static let probes = "GET /livez HTTP/1.1\r\nHost: t\r\n\r\nGET /readyz HTTP/1.1\r\nHost: t\r\n\r\n"

    /// A one-shot latch a test opens; whoever waits on it resumes then. The test can await the first waiter's
    /// arrival (``untilEntered()``) without spinning.
    final class Latch: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        private let arrivals: AsyncStream<Void>
        private let arrived: AsyncStream<Void>.Continuation
        private let flag = Atomic<Bool>(false)
        var entered: Bool { flag.load(ordering: .acquiring) }
        init() {
            (stream, continuation) = AsyncStream.makeStream()
            (arrivals, arrived) = AsyncStream.makeStream()
        }
        func wait() async {
            flag.store(true, ordering: .releasing)
            arrived.finish()
            for await _ in stream { return }
        }
        func untilEntered() async { for await _ in arrivals {} }
        func open() { continuation.finish() }
    }

    static func listener(_ name: String, port: Int = 0) -> Listener {
        .device(name, option: "--port", host: "127.0.0.1", port: port) { router in
            router.get("/healthz") { _, _ in "ok" }
        }
    }

    /// A port free a moment ago, for a listener whose port must be known before the composition says it runs.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        return port
    }

    /// The responses to `requests` on `port`, retried while the listener is not yet bound.
    static func exchange(port: Int, _ requests: String, responses: Int) async throws -> [(status: Int, headers: [String: String], body: String)] {
        for attempt in 1 ... 200 {
            do {
                return RawHTTP.parse(try await RawHTTP.exchange(port: port, requests, responses: responses))
            } catch where attempt < 200 && !(error is RawHTTPTimeout) {
                // Connection refused: the listener binds concurrently with the hook; try again shortly.
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return []
    }

    @Test("every listener answers /livez and /readyz 200 once running, a private one without its token",
          arguments: ListenerUnderTest.allCases)
    func everyListener(_ listener: ListenerUnderTest) async throws {
        let replies = try await listener.serve(timeouts: FrontDoor.Timeouts()) { port in
            RawHTTP.parse(try await RawHTTP.exchange(port: port, Self.probes, responses: 2))
        }
        #expect(replies.map(\.status) == [200, 200])
        #expect(replies.map(\.body) == [#"{"status":"ok"}"#, #"{"status":"ready"}"#])
    }

    @Test("while a migration runs, /readyz and every route answer 503 and /livez 200; once it ends, ready")
    func duringMigration() async throws {
        let port = try await Self.freePort()
        let migration = Latch()
        var composition = ServiceComposition(logger: ListenerUnderTest.quiet)
        composition.beforeServerStarts { await migration.wait() }
        composition.add(Self.listener("device", port: port))
        let group = composition.serviceGroup()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let starting = try await Self.exchange(port: port, Self.probes, responses: 2)
            #expect(starting.map(\.status) == [200], "the gate answers one request, then closes: \(starting)")
            let ready = try await Self.exchange(port: port, "GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n", responses: 1)
            #expect(ready.map(\.status) == [503])
            #expect(ready.first?.body == #"{"status":"unavailable","reason":"starting"}"#)
            #expect(ready.first?.headers["retry-after"] == "1")
            let route = try await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", responses: 1)
            #expect(route.map(\.status) == [503], "no route is served before the migrations end")
            #expect(migration.entered)
            migration.open()
            var after: [(status: Int, headers: [String: String], body: String)] = []
            for _ in 1 ... 200 {
                after = try await Self.exchange(port: port, Self.probes + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", responses: 3)
                if after.count == 3 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(after.map(\.status) == [200, 200, 200])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("from the start of a graceful shutdown /readyz answers 503 while /livez and the routes still answer")
    func fromShutdown() async throws {
        let drain = Latch()
        var composition = ServiceComposition(logger: ListenerUnderTest.quiet)
        composition.drainDelay = .seconds(30)
        composition.drainWait = { _ in await drain.wait() }
        composition.add(Self.listener("device"))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = composition.serviceGroup { bound in continuation.yield(bound["device"] ?? 0) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let before = RawHTTP.parse(try await RawHTTP.exchange(port: port, Self.probes, responses: 2))
            #expect(before.map(\.status) == [200, 200])
            await group.triggerGracefulShutdown()
            await drain.untilEntered()
            let draining = RawHTTP.parse(try await RawHTTP.exchange(
                port: port, Self.probes + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", responses: 3))
            #expect(draining.map(\.status) == [200, 503, 200])
            #expect(draining.dropFirst().first?.body == #"{"status":"unavailable","reason":"draining"}"#)
            drain.open()
            try await tasks.waitForAll()
        }
    }
}
