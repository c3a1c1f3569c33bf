import AsyncHTTPClient
import Foundation
import SKANTestSupport
import Testing

/// Two real `skan serve --relay` processes on one PostgreSQL database share its outbox: one killed with SIGKILL
/// while both deliver and started again, every postback either of them acknowledged reaches the receiver, each
/// under one key, and nothing is left queued.
@Suite("Relay fleet crash recovery", .temporaryFolder, .serialized)
struct RelayFleetCrashTests {
    @Test("two collectors on PostgreSQL, one killed during delivery: every acknowledged postback arrives",
          .enabled(if: CrashRecoveryTests.isBuilt && PostgresTestServer.isAvailable,
                   "needs the skan binary and the PostgreSQL test server"),
          .timeLimit(.minutes(1)))
    func sigkillOneOfTwo() async throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let folder = try TemporaryFolder.current.url
        // Each postback's first attempt fails, so that deliveries are under way (leased, retried) when the kill comes.
        let receiver = Receiver { _, attempt in attempt == 1 ? .status(503) : .accept }
        let port = try await receiver.start()
        let relay = folder.appendingPathComponent("relay.json")
        // A short lease, so that what the killed collector held comes back within the test's few seconds.
        try #"""
            {"destinations": [{"name": "partner", "url": "http://127.0.0.1:\#(port)/in", "in-flight": 4,
              "timeout-seconds": 0.5, "lease-seconds": 2}]}
            """#.write(to: relay, atomically: true, encoding: .utf8)
        let arguments = ["--relay", relay.path]
        let first = try ServerProcess(binary: CrashRecoveryTests.binary, database: url, extraArguments: arguments)
        let second = try ServerProcess(binary: CrashRecoveryTests.binary, database: url, extraArguments: arguments)

        let bodies = (0 ..< 600).map { _ in TestPostbacks.postback() }
        let acknowledged = Acknowledged()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        await withTaskGroup(of: Void.self) { group in
            // Half the workers post to each collector; those of the killed one stop at its first unanswered request.
            for worker in 0 ..< 8 {
                let target = worker.isMultiple(of: 2) ? first.port : second.port
                group.addTask {
                    await CrashRecoveryTests.post(bodies, worker: worker, of: 8, port: target, client: client, into: acknowledged)
                }
            }
            group.addTask {
                _ = await RelayCrashTests.eventually(seconds: 60, every: .milliseconds(5)) {
                    acknowledged.ids.withLock { $0.count } >= 150 && receiver.attempts.count >= 20
                }
                first.kill(SIGKILL)
            }
        }
        try await client.shutdown()
        await first.waitUntilExit()
        #expect(first.terminationSignal == SIGKILL)
        let restarted = try ServerProcess(binary: CrashRecoveryTests.binary, database: url, extraArguments: arguments)

        let ids = Set(acknowledged.ids.withLock { $0 })
        #expect(ids.count >= 300)
        let delivered = await RelayCrashTests.eventually(seconds: 30) {
            Set(RelayCrashTests.transactionIDs(receiver)).isSuperset(of: ids)
        }
        let missing = ids.subtracting(RelayCrashTests.transactionIDs(receiver))
        #expect(delivered && missing.isEmpty, "the receiver never got \(missing.count) of \(ids.count) acknowledged postbacks")
        // Every stored postback (the acknowledged ones, and any the kill cut off before its reply) went under one
        // key, and the outbox drained: nothing is left queued or dead.
        let drained = await RelayCrashTests.eventually(seconds: 10) {
            (try? server.psql(url, "SELECT count(*) FROM relay_outbox").trimmingCharacters(in: .whitespacesAndNewlines)) == "0"
        }
        #expect(drained, "entries are left in the outbox")
        let stored = try server.psql(url, "SELECT count(*) FROM postbacks").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(String(receiver.accepted.count) == stored)
        #expect(Set(receiver.attempts.map(\.key)).count == receiver.accepted.count)
        for process in [second, restarted] { process.kill(SIGTERM) }
        for process in [second, restarted] { await process.waitUntilExit() }
        #expect(second.exitStatus == 0 && restarted.exitStatus == 0)
        await receiver.stop()
    }
}
