import NIOCore
import PostgresNIO
import SKANStore

/// Values of ``PostbackTable``'s columns to and from PostgreSQL, by the column's kind.
enum PostgresCells {
    /// Appends `value` as the column's PostgreSQL type: booleans go as `boolean`, not as SQLite's 0 or 1.
    static func bind(_ value: ColumnValue, kind: PostbackColumn.Kind, into binds: inout PostgresBindings) {
        switch value {
        case .null: binds.appendNull()
        case .integer(let number) where kind == .boolean: binds.append(number != 0)
        case .integer(let number): binds.append(number)
        case .text(let text): binds.append(text)
        case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
        }
    }

    /// A cell as the value ``StoredPostback/init(reading:)`` reads: booleans as 0 or 1.
    static func value(_ cell: PostgresCell, kind: PostbackColumn.Kind) -> ColumnValue {
        guard cell.bytes != nil else { return .null }
        switch kind {
        case .text: return (try? cell.decode(String.self)).map(ColumnValue.text) ?? .null
        case .integer: return (try? cell.decode(Int64.self)).map(ColumnValue.integer) ?? .null
        case .boolean: return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .blob: return cell.bytes.map { ColumnValue.blob(Array($0.readableBytesView)) } ?? .null
        }
    }
}
