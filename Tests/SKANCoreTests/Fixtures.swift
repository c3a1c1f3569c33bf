import Foundation

/// Paths to the files tests read: the package's `Keys/` and `Samples/`, and `../shared/vectors`.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let keys = packageRoot.appendingPathComponent("Keys")
    static let samples = packageRoot.appendingPathComponent("Samples")
    static let vectors = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")

    static func data(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    static func json(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    /// Files of one vector folder, sorted.
    static func vectorFiles(_ folder: String) -> [URL] {
        let directory = vectors.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }
}
