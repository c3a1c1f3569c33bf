import NIOCore
import PostgresNIO
import SKANStore

/// One column's values for a whole batch, bound as a single one-dimensional PostgreSQL array (`text[]`, `bigint[]`,
/// `boolean[]` or `bytea[]`) with NULL elements where a row has no value, for `unnest` to turn back into rows.
///
/// Why: a batch bound as arrays is one parameter per column instead of one per cell, so the insert's text is the
/// same for every batch size and PostgreSQL prepares and plans it once per connection, where a `VALUES` list of
/// thousands of placeholders was parsed and planned afresh for every batch. postgres-nio encodes arrays of
/// non-optional values only; this writes the same binary array format (PostgreSQL's `array_send`: dimensions,
/// a has-nulls flag, the element type, the length and lower bound, then each element's length, -1 for NULL, and
/// bytes) with NULLs allowed.
struct PostgresColumnArray: PostgresDynamicTypeEncodable, Sendable {
    let kind: PostbackColumn.Kind
    private var elements = ByteBuffer()
    private var count: Int32 = 0
    private var hasNulls = false

    init(kind: PostbackColumn.Kind, capacity: Int) {
        self.kind = kind
        elements.reserveCapacity(capacity * 16)
    }

    /// Appends one row's value, as ``PostgresCells/bind(_:kind:into:)`` would bind it alone.
    mutating func append(_ value: ColumnValue) {
        count += 1
        switch value {
        case .null:
            hasNulls = true
            elements.writeInteger(Int32(-1))
        case .integer(let number) where kind == .boolean:
            elements.writeInteger(Int32(1))
            elements.writeInteger(UInt8(number != 0 ? 1 : 0))
        case .integer(let number):
            elements.writeInteger(Int32(8))
            elements.writeInteger(number)
        case .text(let text):
            let lengthAt = elements.writerIndex
            elements.writeInteger(Int32(0))
            let written = elements.writeString(text)
            elements.setInteger(Int32(written), at: lengthAt)
        case .blob(let bytes):
            elements.writeInteger(Int32(bytes.count))
            elements.writeBytes(bytes)
        }
    }

    /// Appends a text value (a row's counter name).
    mutating func append(_ text: String) { append(.text(text)) }

    var psqlType: PostgresDataType {
        switch kind {
        case .text: .textArray
        case .integer: .int8Array
        case .boolean: .boolArray
        case .blob: .byteaArray
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    private var elementType: PostgresDataType {
        switch kind {
        case .text: .text
        case .integer: .int8
        case .boolean: .bool
        case .blob: .bytea
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer,
                                                  context: PostgresEncodingContext<JSONEncoder>) {
        // An empty array has no dimensions at all in PostgreSQL's format.
        buffer.writeInteger(Int32(count == 0 ? 0 : 1))
        buffer.writeInteger(Int32(hasNulls ? 1 : 0))
        buffer.writeInteger(elementType.rawValue)
        guard count > 0 else { return }
        buffer.writeInteger(count)
        buffer.writeInteger(Int32(1))
        var elements = elements
        buffer.writeBuffer(&elements)
    }
}
