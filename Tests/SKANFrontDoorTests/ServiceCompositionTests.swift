import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SKANHTTP
import Synchronization
import Testing

/// The one builder of a process's service group (issue 31): hooks before any listener or worker, one "running"
/// call once every listener is bound, bind failures named by their option.
@Suite("Service composition", .timeLimit(.minutes(1)))
struct ServiceCompositionTests {
    /// Records the order things happened in.
    final class Events: Sendable {
        let list = Mutex<[String]>([])
        func add(_ event: String) { list.withLock { $0.append(event) } }
        var all: [String] { list.withLock { $0 } }
    }

    /// A worker that records its start and waits for the shutdown.
    struct Worker: Service {
        let events: Events
        func run() async throws {
            events.add("worker")
            try? await gracefulShutdown()
            events.add("worker stopped")
        }
    }

    static func listener(_ name: String, port: Int = 0) -> Listener {
        .device(name, option: "--\(name)-port", host: "127.0.0.1", port: port) { router in
            router.get("/healthz") { _, _ in "ok" }
        }
    }

    @Test("the hooks run once before any listener serves and any worker starts; running is reported once, with every port")
    func order() async throws {
        let events = Events()
        var composition = ServiceComposition(logger: ListenerUnderTest.quiet)
        composition.add(worker: Worker(events: events))
        composition.beforeServerStarts {
            events.add("hook")
            // Long enough that a listener or worker not waiting for it would be seen first.
            try await Task.sleep(for: .milliseconds(200))
            events.add("hook done")
        }
        composition.add(Self.listener("one"))
        composition.add(Self.listener("two"))
        let bound = try await composition.serve { bound in
            events.add("running")
            return bound
        }
        #expect(bound["one"].map { $0 > 0 } == true && bound["two"].map { $0 > 0 } == true && bound["one"] != bound["two"])
        let all = events.all
        #expect(all.filter { $0 == "hook" }.count == 1)
        #expect(all.firstIndex(of: "hook done")! < all.firstIndex(of: "worker")!, "\(all)")
        #expect(all.firstIndex(of: "hook done")! < all.firstIndex(of: "running")!, "\(all)")
        #expect(all.filter { $0 == "running" }.count == 1)
        #expect(all.last == "worker stopped", "the worker stops after the listeners: \(all)")
    }

    @Test("a listener that cannot bind ends the group with one line naming its address, port and option")
    func busyPort() async throws {
        let holder = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(holder.localAddress?.port)
        var composition = ServiceComposition(logger: ListenerUnderTest.quiet)
        composition.add(Self.listener("device"))
        composition.add(Self.listener("admin", port: port))
        await #expect(throws: ListenerError(.addressInUse, "127.0.0.1:\(port) (--admin-port) is already in use by "
                                            + "another process; choose another --admin-port or stop that process")) {
            try await composition.serve { _ in }
        }
        await #expect(throws: ListenerError.self) { try await ListenerProbe.check([Self.listener("admin", port: port)]) }
        try await holder.close()
    }
}
