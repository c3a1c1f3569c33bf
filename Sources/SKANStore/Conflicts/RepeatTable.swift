import SKANCore

/// The one description of `postback_repeats`: what is kept when a postback arrives whose dedup key is already
/// stored, and either a value Apple's signature does not cover differs from the stored one (a conflict), or it came
/// from the other side (``CopySide``: a developer copy beside the network's postback). The stored, counted row never
/// changes and the repeat is still answered as a duplicate; only the repeat is written here, in the transaction of
/// its batch. A repeat on the same side with the same values (a device's retry) writes nothing, as before.
///
/// Engines make their insert and their export from ``columns``; the memory engine keeps rows of these values.
public enum RepeatTable {
    /// The table's name.
    public static let name = "postback_repeats"

    /// A value a repeat is compared on: its name in ``RepeatComparison/differing`` and the report, and the
    /// `postbacks` column it is read from. Never signed by Apple (spec §3.1: conversion and coarse values, country;
    /// AdAttributionKit's interaction type), so a relay can change it without breaking the signature.
    public struct Compared: Sendable {
        /// The name a list of differing fields uses: the `--by` field of the same value.
        public let name: String
        /// The column of `postbacks` that holds it.
        public let column: PostbackColumn
    }

    /// The compared values, in the order ``RepeatComparison/differing`` lists them.
    public static let compared: [Compared] = [
        Compared(name: "conversion-value", column: PostbackTable.conversionValue),
        Compared(name: "coarse-value", column: PostbackTable.coarseConversionValue),
        Compared(name: "country", column: PostbackTable.countryCode),
        Compared(name: "interaction", column: PostbackTable.fidelityType),
    ]

    /// What the comparison reads of the stored row, in this order: the ``compared`` columns, then where it came
    /// from (its path), when, and from which client address. Every engine selects these columns by the unique key.
    public static let firstColumns: [PostbackColumn] = compared.map(\.column)
        + [PostbackTable.endpoint, PostbackTable.receivedAt, PostbackTable.clientAddress]

    /// Every column after the id, in table order.
    public static let columns: [(name: String, kind: PostbackColumn.Kind, isNullable: Bool)] = {
        var columns: [(name: String, kind: PostbackColumn.Kind, isNullable: Bool)] = [
            ("framework", .text, false), ("ad_network_id", .text, false), ("transaction_id", .text, false),
            ("dedup_sequence_index", .integer, false), ("differing", .text, false),
        ]
        for value in compared {
            columns.append(("first_" + value.column.name, value.column.kind, true))
            columns.append(("repeat_" + value.column.name, value.column.kind, true))
        }
        columns += [
            ("first_side", .text, false), ("first_endpoint", .text, false), ("first_received_at", .text, false),
            ("repeat_side", .text, false), ("repeat_endpoint", .text, false), ("repeat_client_address", .text, true),
            ("repeat_received_at", .text, false), ("repeat_raw_body", .blob, false), ("repeat_values", .text, false),
            // Last: added by a migration (SQLite 0014, PostgreSQL 0011), which appends it to tables made before.
            ("first_client_address", .text, true),
        ]
        return columns
    }()

    /// The columns a later migration added (SQLite 0014-integrity, PostgreSQL 0011-integrity), at the end of
    /// ``columns``: the table's first migration makes it without them, so that a new store and an upgraded one end
    /// with the same table.
    public static let addedColumns = ["first_client_address"]

    /// ``columns`` as the table's first migration made them.
    public static var firstMigrationColumns: [(name: String, kind: PostbackColumn.Kind, isNullable: Bool)] {
        Array(columns.dropLast(addedColumns.count))
    }

    /// Counts the conflicts kept before the counters of ``StatCounter/conflictsFieldPrefix`` existed, once, by the
    /// migration that adds them: per compared value, `SELECT` of the counter's name and the number of conflicts in
    /// which it differed (SQL that SQLite and PostgreSQL read alike), for an `INSERT INTO` the engine's counters.
    public static var conflictsByFieldBackfill: String {
        compared.map { value in
            "SELECT '\(StatCounter.conflictsFieldPrefix)\(value.name)', count(*) FROM \(name) "
                + "WHERE differing <> '' AND ',' || differing || ',' LIKE '%,\(value.name),%'"
        }.joined(separator: " UNION ALL ")
    }

    /// The partial index of the conflicts among the repeats, by id: what the newest conflicts are read by.
    public static let conflictsIndex = "CREATE INDEX postback_repeats_conflicts ON postback_repeats (id) WHERE differing <> ''"

    /// What keeps one repeat once: a retry of a kept repeat (a device resending a developer copy that got no 200, a
    /// file ingested again) has the same key, side and values, and is not kept again. `repeat_values` holds the
    /// ``compared`` values as one text, so that the key has no NULLs (which SQLite's unique indexes hold distinct).
    public static let uniqueKey = ["transaction_id", "ad_network_id", "dedup_sequence_index", "framework", "repeat_side",
                                   "repeat_values"]

    /// Where ``columns`` has ``differing``.
    public static let differingIndex = 4

    /// The export's columns, header first.
    public static var exportColumns: [String] { [PostbackTable.id] + columns.map(\.name) }
}

/// A repeat of a stored postback compared with it: the values ``RepeatTable/columns`` keeps, or nothing when the
/// repeat is a retry (same side, same values).
public struct RepeatComparison: Sendable, Hashable {
    /// The names of the ``RepeatTable/compared`` values that differ, in that order; empty when they all agree.
    public let differing: [String]
    /// The row of ``RepeatTable/columns``.
    public let values: [ColumnValue]

    /// Compares `repeated` with the stored row's ``RepeatTable/firstColumns`` values (`first`, in that order); `nil`
    /// when there is nothing to keep. Only a duplicate pays for this: an accepted postback never reaches it. The
    /// first copy's client address is the stored row's (``PostbackTable/clientAddress``), so a repeat arriving in a
    /// later batch than its first copy finds it as one in the same batch does; a row stored before the column
    /// existed has none.
    public init?(first: [ColumnValue], repeated: AcceptedPostback) {
        let count = RepeatTable.compared.count
        precondition(first.count == RepeatTable.firstColumns.count, "a stored row read with other columns")
        var differing: [String] = []
        var pairs: [ColumnValue] = []
        pairs.reserveCapacity(2 * count)
        for (index, value) in RepeatTable.compared.enumerated() {
            let again = value.column.value(repeated)
            if first[index] != again { differing.append(value.name) }
            pairs += [first[index], again]
        }
        let firstEndpoint = first[count].text ?? ""
        let firstSide = CopySide(endpoint: firstEndpoint)
        let repeatSide = CopySide(endpoint: repeated.endpoint)
        guard !differing.isEmpty || firstSide != repeatSide else { return nil }
        let key = repeated.dedupKey
        self.differing = differing
        values = [.text(key.framework.rawValue), .text(key.network), .text(key.dedupID), .integer(Int64(key.window)),
                  .text(differing.joined(separator: ","))]
            + pairs
            + [.text(firstSide.rawValue), .text(firstEndpoint), first[count + 1],
               .text(repeatSide.rawValue), .text(repeated.endpoint), .text(repeated.clientAddress),
               // An agreeing copy says nothing its stored postback does not: its body is not kept (empty), which on a
               // store of developer copies saves a body per install.
               .text(Timestamp.iso8601(repeated.receivedAt)), .blob(differing.isEmpty ? [] : repeated.rawBody),
               .text(Self.text(of: stride(from: 1, to: pairs.count, by: 2).map { pairs[$0] })),
               first[count + 2]]
    }

    /// The compared values as one text, in ``RepeatTable/compared`` order: `name=value` joined by `;`, empty for none.
    static func text(of values: [ColumnValue]) -> String {
        zip(RepeatTable.compared, values).map { compared, value in
            switch value {
            case .null: compared.name + "="
            case .integer(let number): compared.name + "=" + String(number)
            case .text(let text): compared.name + "=" + text
            case .blob(let bytes): compared.name + "=" + String(decoding: bytes, as: UTF8.self)
            }
        }.joined(separator: ";")
    }

    /// The values of ``RepeatTable/uniqueKey``, in its order.
    public var uniqueKey: [ColumnValue] {
        RepeatTable.uniqueKey.map { name in values[RepeatTable.columns.firstIndex { $0.name == name }!] }
    }

    /// Whether a compared value differs: a conflict, counted under ``StatCounter/conflicts`` when it is kept.
    public var isConflict: Bool { !differing.isEmpty }
}
