import NIOCore
import PostgresNIO
import SKANStore

/// One exported row's values, copied out of postgres-nio's buffers into one reused array, so that an
/// ``ExportRow`` can point into it as SQLite's points into its statement: one copy per row, no allocation.
struct ExportScratch {
    private enum Slot {
        case null
        case integer(Int64)
        case real(Double)
        case text(Int, Int)
        case blob(Int, Int)
    }

    private var bytes: [UInt8] = []
    private var slots: [Slot]

    init(columns: Int) {
        slots = Array(repeating: .null, count: columns)
        bytes.reserveCapacity(1 << 16)
    }

    /// Copies `row`'s values, rendered as SQLite's export renders them: booleans as 1 and 0, integers as numbers,
    /// text and bytea as their bytes.
    mutating func load(_ row: PostgresRow) {
        bytes.removeAll(keepingCapacity: true)
        var index = 0
        for cell in row where index < slots.count {
            defer { index += 1 }
            guard var buffer = cell.bytes else {
                slots[index] = .null
                continue
            }
            switch cell.dataType {
            case .int8: slots[index] = buffer.readInteger(as: Int64.self).map(Slot.integer) ?? .null
            case .int4: slots[index] = buffer.readInteger(as: Int32.self).map { .integer(Int64($0)) } ?? .null
            case .int2: slots[index] = buffer.readInteger(as: Int16.self).map { .integer(Int64($0)) } ?? .null
            case .bool: slots[index] = .integer(buffer.readInteger(as: UInt8.self) == 0 ? 0 : 1)
            case .float8: slots[index] = buffer.readInteger(as: UInt64.self).map { .real(Double(bitPattern: $0)) } ?? .null
            default:
                let start = bytes.count
                buffer.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
                slots[index] = cell.dataType == .bytea ? .blob(start, bytes.count - start) : .text(start, bytes.count - start)
            }
        }
    }

    /// Hands the loaded row to `each`; its text and blobs point into the scratch array for that call only.
    func withRow(_ each: (ExportRow) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { base in
            let slots = slots
            try each(ExportRow(count: slots.count) { index in
                switch slots[index] {
                case .null: .null
                case .integer(let number): .integer(number)
                case .real(let number): .real(number)
                case .text(let start, let count): .text(UnsafeBufferPointer(rebasing: base[start..<start + count]))
                case .blob(let start, let count): .blob(UnsafeBufferPointer(rebasing: base[start..<start + count]))
                }
            })
        }
    }
}
