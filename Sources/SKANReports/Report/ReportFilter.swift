import SKANStore

/// A condition a report's postbacks meet (`skan report --where ad-network=example123.skadnetwork`): the field's
/// value, written as the report's own cell shows it, or nothing after `=` for postbacks that have none.
public struct ReportFilter: Sendable, Hashable, CustomStringConvertible {
    /// The field compared.
    public var field: ReportField
    /// The value it must have, or `nil` for an empty cell.
    public var value: String?

    /// Makes a filter.
    public init(_ field: ReportField, equals value: String?) {
        self.field = field
        self.value = value
    }

    /// Reads `FIELD=VALUE`, naming what is wrong and what was expected.
    public init(parsing text: String) throws(ReportError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ReportError(.unknownField, "--where must be FIELD=VALUE (an empty VALUE matches an empty cell), got \"\(text)\"")
        }
        let name = String(text[..<equals])
        guard let field = ReportField(rawValue: name) else {
            throw ReportError(.unknownField, "--where: unknown field \"\(name)\"; fields are "
                              + ReportField.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let value = String(text[text.index(after: equals)...])
        self.init(field, equals: value.isEmpty ? nil : value)
    }

    /// `FIELD=VALUE`, as given.
    public var description: String { "\(field.rawValue)=\(value ?? "")" }

    /// The store's condition; `nil` for a campaign map's names, which the report compares once it has found them.
    var condition: AggregateQuery.Filter? { field.dimension.map { AggregateQuery.Filter($0, equals: value) } }
}
