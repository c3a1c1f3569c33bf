import SKANCore

/// The columns of `rejected_postbacks` after its id, in table order, and a refusal's values in them, cut as a
/// ``RejectionCap`` says: what every engine keeps of a refused body. The memory engine stores these values as they
/// are; the SQL engines' inserts bind the same values.
public enum RejectedTable {
    /// The table's name.
    public static let name = ExportTable.rejected.rawValue

    /// Every column after ``PostbackTable/id``, as the engines' migrations make them.
    public static let columns = [
        "received_at", "status", "field", "reason", "version", "transaction_id", "ad_network_id", "endpoint",
        "body_length", "raw_body",
    ]

    /// Where ``columns`` has the status.
    public static let statusIndex = 1

    /// The export's columns, header first.
    public static var exportColumns: [String] { [PostbackTable.id] + columns }

    /// `refusal`'s values in ``columns``' order: every value a client chose cut to the cap's bounds, each cut value
    /// ending in its original length (``Excerpt``), and the body to its first bytes beside its full length.
    public static func values(_ refusal: RejectedPostback, cap: RejectionCap) -> [ColumnValue] {
        let value = { (text: String?) in ColumnValue.text(text.map { Excerpt.of($0, maximumBytes: cap.maximumValueBytes) }) }
        return [
            .text(Timestamp.iso8601(refusal.receivedAt)), .text(refusal.status), value(refusal.field),
            .text(Excerpt.of(refusal.reason, maximumBytes: cap.maximumReasonBytes)), value(refusal.version),
            value(refusal.transactionID), value(refusal.adNetworkID), value(refusal.endpoint),
            .integer(Int64(refusal.rawBody.count)), .blob(Array(refusal.rawBody.prefix(cap.maximumBodyBytes))),
        ]
    }
}
