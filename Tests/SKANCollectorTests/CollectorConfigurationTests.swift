import Logging
import SKANCollector
import SKANStore
import SKANStoreSQLite
import Testing

@Suite("Collector configuration")
struct CollectorConfigurationTests {
    @Test("refuses a configuration that cannot work", arguments: [
        CollectorConfiguration(postbackPaths: []),
        CollectorConfiguration(postbackPaths: ["postbacks"]),
        CollectorConfiguration(bodyLimit: 0),
        CollectorConfiguration(eventLoopThreads: 0),
    ])
    func invalid(configuration: CollectorConfiguration) throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        #expect(throws: CollectorError.self) {
            try Collector(configuration: configuration, store: store, logger: Logger(label: "test"))
        }
    }
}
