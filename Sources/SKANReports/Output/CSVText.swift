/// How a CSV writer treats a text cell that came from outside (a postback's fields, a refused body, a schema's
/// names): OWASP's rule against CSV formula injection, written once for every CSV SKANKit writes.
///
/// Why: campaign managers open these files in spreadsheets, and a spreadsheet runs a cell that begins with `=`, `+`,
/// `-`, `@`, a tab or a carriage return as a formula (`=HYPERLINK(...)`, `=cmd|' /C calc'!A0`); `country-code`,
/// `source-domain` and every refused body are unsigned, anyone's to choose. A leading `'` makes the spreadsheet show
/// the text as text. Numbers SKANKit writes itself (counts, ids, revenue) are never text cells, so a negative number
/// stays a number.
public enum CSVText: Sendable, Hashable, CaseIterable {
    /// A text cell a spreadsheet would read as a formula gets a leading `'`: for people (the default).
    case spreadsheetSafe
    /// Every cell exactly as stored: for machines (`--csv-raw`, the dashboard's `?raw=1`).
    case raw

    /// Whether a text cell beginning with `byte` would be read as a formula: `=`, `+`, `-`, `@`, tab, CR.
    @inline(__always)
    public static func startsFormula(_ byte: UInt8) -> Bool {
        byte == 0x3D || byte == 0x2B || byte == 0x2D || byte == 0x40 || byte == 0x09 || byte == 0x0D
    }

    /// The apostrophe that neutralises a formula.
    static let neutraliser: UInt8 = 0x27

    /// The byte to write before `value`: the apostrophe when the cell must be neutralised, else `nil`.
    @inline(__always)
    func prefix(for value: UnsafeBufferPointer<UInt8>) -> UInt8? {
        guard self == .spreadsheetSafe, let first = value.first, Self.startsFormula(first) else { return nil }
        return Self.neutraliser
    }

    /// `text` as this mode writes it, before CSV quoting.
    public func cell(_ text: String) -> String {
        guard self == .spreadsheetSafe, let first = text.utf8.first, Self.startsFormula(first) else { return text }
        return "'" + text
    }

    /// Appends a text field: neutralised as this mode says, then quoted as RFC 4180 requires.
    public func appendField(_ value: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        CSVEncoding.appendField(value, prefix: prefix(for: value), to: &buffer)
    }

    /// Appends a text field's bytes.
    public func appendField(_ value: some Collection<UInt8>, to buffer: inout [UInt8]) {
        if let done: Void = value.withContiguousStorageIfAvailable({ appendField($0, to: &buffer) }) { return done }
        Array(value).withUnsafeBufferPointer { appendField($0, to: &buffer) }
    }

    /// Appends a text field.
    public func appendField(_ value: String, to buffer: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendField($0, to: &buffer) }
    }

    /// Appends a record whose cells in `textColumns` (all of them when `nil`) are text, the others numbers
    /// SKANKit wrote, ended by CRLF.
    public func appendRecord(_ fields: [String], textColumns: Range<Int>? = nil, to buffer: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.append(0x2C) }
            if textColumns?.contains(index) ?? true {
                appendField(field, to: &buffer)
            } else {
                CSVEncoding.appendField(field, to: &buffer)
            }
        }
        buffer.append(contentsOf: CSVEncoding.newline)
    }
}
