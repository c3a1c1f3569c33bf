import SKANStore

/// Where a report's groups carry what the schema's tables are chosen by (app, window, install day), and how a group's
/// keys become its row's: found once per report from the request, then read per group by position.
struct SchemaDecoding: Sendable {
    let schema: ConversionSchema?
    private let appAt: Int?
    private let windowAt: Int?
    private let dayAt: Int?
    /// How many leading keys are the row's own; `nil` when every key is (no dimension was added for the schema).
    private let rowKeyCount: Int?

    init(_ request: ReportRequest) {
        schema = request.schema
        let dimensions = request.storeDimensions
        appAt = dimensions.firstIndex(of: .app)
        windowAt = dimensions.firstIndex(of: .window)
        // Only an install day chooses a version; ReportRequest refuses a dated schema on arrival days.
        dayAt = request.day == .install ? dimensions.firstIndex(of: .day) : nil
        let own = request.fields.compactMap(\.dimension).count
        rowKeyCount = request.schemaDimensions.isEmpty || request.namesCampaigns ? nil : own
    }

    func app(_ keys: [String?]) -> String? { appAt.flatMap { keys[$0] } }
    func window(_ keys: [String?]) -> Int? { windowAt.flatMap { keys[$0] }.flatMap { Int($0) } }
    func installDay(_ keys: [String?]) -> String? { dayAt.flatMap { keys[$0] } }

    /// The keys of the report's row: without the dimensions added for the schema.
    func rowKeys(_ keys: [String?]) -> [String?] {
        guard let rowKeyCount, keys.count > rowKeyCount else { return keys }
        return Array(keys.prefix(rowKeyCount))
    }
}
