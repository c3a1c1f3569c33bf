import SKANCore

/// A kept conflict as people may see it (the dashboard's latest conflicts): the key, what differed, both values and
/// where each came from, never the body.
public struct ConflictSummary: Sendable, Hashable {
    /// When the repeat arrived, ISO 8601 UTC as stored.
    public var receivedAt: String
    /// The framework, the ad network, the dedup id and the window: the key both share.
    public var framework: String
    public var network: String
    public var dedupID: String
    public var window: Int
    /// The names of the values that differ (``RepeatTable/compared``).
    public var differing: [String]
    /// The stored (counted) postback's compared values, `name=value` joined by `;`.
    public var firstValues: String
    /// The repeat's, the same way.
    public var repeatValues: String
    /// The side and path each arrived on.
    public var firstSide: String
    public var firstEndpoint: String
    public var repeatSide: String
    public var repeatEndpoint: String
    /// The repeat's client address, when the collector knew it.
    public var clientAddress: String?
    /// The first (counted) postback's client address, when the collector knew it (``PostbackTable/clientAddress``;
    /// none for a postback stored before that column existed).
    public var firstClientAddress: String?

    /// The columns every engine selects, in ``init(values:)``'s order.
    public static let columns: [(name: String, kind: PostbackColumn.Kind)] = {
        let named = ["repeat_received_at", "framework", "ad_network_id", "transaction_id", "dedup_sequence_index",
                     "differing", "first_side", "first_endpoint", "repeat_side", "repeat_endpoint", "repeat_client_address",
                     "first_client_address"]
        let compared = RepeatTable.compared.flatMap { ["first_" + $0.column.name, "repeat_" + $0.column.name] }
        return (named + compared).map { name in (name, RepeatTable.columns.first { $0.name == name }!.kind) }
    }()

    /// The statement every SQL engine runs: the newest `limit` conflicts, newest first, found by the partial index
    /// on conflicts (agreeing copies, far more numerous, are not read). `placeholder` is the engine's parameter.
    public static func statement(limit placeholder: String) -> String {
        "SELECT \(columns.map(\.name).joined(separator: ", ")) FROM \(RepeatTable.name) "
            + "WHERE differing <> '' ORDER BY id DESC LIMIT \(placeholder)"
    }

    /// A summary from a row of ``statement(limit:)``.
    public init(values: [ColumnValue]) {
        receivedAt = values[0].text ?? ""
        framework = values[1].text ?? ""
        network = values[2].text ?? ""
        dedupID = values[3].text ?? ""
        window = values[4].integer ?? 0
        differing = (values[5].text ?? "").split(separator: ",").map(String.init)
        firstSide = values[6].text ?? ""
        firstEndpoint = values[7].text ?? ""
        repeatSide = values[8].text ?? ""
        repeatEndpoint = values[9].text ?? ""
        clientAddress = values[10].text
        firstClientAddress = values[11].text
        let compared = values.dropFirst(12)
        firstValues = RepeatComparison.text(of: stride(from: compared.startIndex, to: compared.endIndex, by: 2).map { compared[$0] })
        repeatValues = RepeatComparison.text(of: stride(from: compared.startIndex + 1, to: compared.endIndex, by: 2).map { compared[$0] })
    }
}
