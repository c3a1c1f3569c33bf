import AsyncHTTPClient
import Foundation
import NIOCore
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Synchronization
import Testing

/// `skan serve` under load while its database is truncated or its WAL removed (issue 32: 1,942 and 26,885 postbacks
/// acknowledged after the damage, 32 and 274 acknowledged postbacks missing after a SIGKILL).
@Suite("Store damage under load", .temporaryFolder, .serialized)
struct StoreDamageProcessTests {
    enum Damage: String, CaseIterable { case truncated, walRemoved }

    /// Acknowledgements, split by whether the request was sent after the damage was done.
    final class Tally: Sendable {
        let before = Mutex<[String]>([])
        let after = Mutex<[String]>([])
        let damaged = Atomic<Bool>(false)
    }

    @Test("nothing sent after the damage is acknowledged, healthz fails at once, and a removed WAL loses no acknowledged postback across SIGKILL",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(2)),
          arguments: Damage.allCases)
    func underLoad(damage: Damage) async throws {
        let folder = try TemporaryFolder.current.url
        let path = folder.appendingPathComponent("skan.sqlite").path
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: path)
        let tally = Tally()
        let bodies = (0..<40_000).map { _ in TestPostbacks.postback() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let health = Probes()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var index = worker
                    while index < bodies.count {
                        let sentAfter = tally.damaged.load(ordering: .acquiring)
                        guard let accepted = await CrashRecoveryTests.accept(bodies[index], port: server.port,
                                                                              client: client) else { return }
                        if accepted {
                            if sentAfter {
                                tally.after.withLock { $0.append(bodies[index].transactionID) }
                            } else {
                                tally.before.withLock { $0.append(bodies[index].transactionID) }
                            }
                        }
                        index += 16
                    }
                }
            }
            group.addTask {
                // Past SQLite's automatic checkpoint, so that the main file holds pages, then the damage.
                // Bounded: were every worker to give up first (no answer in 10 s), 3,000 would never come.
                _ = await RelayCrashTests.eventually(seconds: 60, every: .milliseconds(5)) {
                    tally.before.withLock { $0.count } >= 3000
                }
                switch damage {
                case .truncated: _ = truncate(path, 0)
                case .walRemoved: try? FileManager.default.removeItem(atPath: path + "-wal")
                }
                tally.damaged.store(true, ordering: .releasing)
                for _ in 0..<3 {
                    let probe = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/healthz")
                    if let response = try? await client.execute(probe, timeout: .seconds(5)) {
                        _ = try? await response.body.collect(upTo: 4096)
                        health.codes.withLock { $0.append(Int(response.status.code)) }
                    }
                }
                try? await Task.sleep(for: .milliseconds(500))
                server.kill(SIGKILL)
            }
        }
        try await client.shutdown()
        await server.waitUntilExit()
        let (before, after) = (tally.before.withLock { $0 }, tally.after.withLock { $0 })
        #expect(after.isEmpty, "\(after.count) postbacks sent after the damage were acknowledged")
        #expect(health.codes.withLock { $0 } == [503, 503, 503])
        var missing: Int?
        if damage == .walRemoved {
            let store = try await SQLitePostbackStore.open(path: path)
            var count = 0
            for id in before + after where try await store.postbacks(transactionID: id).isEmpty { count += 1 }
            try await store.close()
            missing = count
            #expect(count == 0, "lost \(count) of \(before.count + after.count) acknowledged postbacks")
        }
        print("store damage (\(damage)): \(before.count) acknowledged before, \(after.count) after; healthz "
              + "\(health.codes.withLock { $0 }); missing after SIGKILL: \(missing.map(String.init) ?? "not counted (the truncation itself destroyed the rows)")")
    }
}

/// The `/healthz` codes seen after the damage.
final class Probes: Sendable {
    let codes = Mutex<[Int]>([])
}
