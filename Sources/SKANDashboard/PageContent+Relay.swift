import Foundation
import SKANStore

/// The relay page: each destination's queue from the outbox (shared by a fleet), this collector's delivery counts
/// when it delivers, and the dead letters with the command that sends them again. Never a body.
extension PageContent {
    struct RelayRow {
        let name: String; let queued: String; let oldest: String; let age: String
        let sent: String; let retried: String; let dead: String; let deadLetters: String; let lastError: String
        /// `skan relay retry --dead --destination NAME`, when the destination has dead letters.
        let retryCommand: String?
    }

    struct DeadLetterRow { let id: String; let destination: String; let attempts: String; let lastError: String; let queuedAt: String }

    /// What the relay page adds to the shared content.
    struct RelaySection {
        var rows: [RelayRow] = []
        var deadLetters: [DeadLetterRow] = []
        var tiles: [Tile] = []
        var emptyNote: String?
        var note = ""
        var retryCommand: String?
    }

    /// The command that makes dead letters due again, every word from the store shell-quoted: a destination's name
    /// is the store's text, and a pasted command must retry that destination and do nothing else.
    static func retryCommand(destination: String?) -> String {
        "skan relay retry --dead" + (destination.map { " --destination " + ShellQuoting.quote($0) } ?? "")
    }

    static func relaySection(reader: any PostbackReader, delivery: RelayDelivery?, deadLetterLimit: Int,
                             now: Date) async throws -> RelaySection {
        let depths = try await reader.outboxDepths()
        let counts = delivery?.counts() ?? [:]
        var section = RelaySection()
        // The configured destinations first, in the file's order, then any other the outbox still holds (one
        // removed from the file keeps its entries until someone decides about them).
        let byName = Dictionary(depths.map { ($0.destination, $0) }, uniquingKeysWith: { first, _ in first })
        let configured = delivery?.destinations ?? []
        let names = configured + depths.map(\.destination).filter { !configured.contains($0) }
        section.rows = names.map { name in
            let depth = byName[name]
            let count = counts[name]
            return RelayRow(
                name: name, queued: NumberText.grouped(depth?.pending ?? 0),
                oldest: depth?.oldest.map(Timestamp.iso8601) ?? "—",
                age: depth?.oldest.map { Self.age(now.timeIntervalSince($0)) } ?? "—",
                sent: count.map { NumberText.grouped($0.sent) } ?? "—",
                retried: count.map { NumberText.grouped($0.retried) } ?? "—",
                dead: count.map { NumberText.grouped($0.dead) } ?? "—",
                deadLetters: NumberText.grouped(depth?.dead ?? 0), lastError: depth?.lastError ?? "",
                retryCommand: (depth?.dead ?? 0) > 0 ? Self.retryCommand(destination: name) : nil)
        }
        section.deadLetters = try await reader.deadLetters(limit: deadLetterLimit).map {
            DeadLetterRow(id: String($0.id), destination: $0.destination, attempts: String($0.attempts),
                          lastError: $0.lastError ?? "", queuedAt: Timestamp.iso8601($0.createdAt))
        }
        let queued = depths.reduce(0) { $0 + $1.pending }
        let dead = depths.reduce(0) { $0 + $1.dead }
        let oldest = depths.compactMap(\.oldest).min()
        section.tiles = [
            Tile(label: "Queued", value: NumberText.grouped(queued), id: "relay-queued"),
            Tile(label: "Oldest waiting", value: oldest.map { Self.age(now.timeIntervalSince($0)) } ?? "—", id: "relay-oldest"),
            Tile(label: "Dead letters kept", value: NumberText.grouped(dead), id: "relay-dead"),
        ]
        if names.isEmpty {
            section.emptyNote = "Nothing is queued and no dead letter is kept: no destination has an entry waiting "
                + "(a collector relays with skan serve --relay FILE)."
        }
        section.note = (delivery == nil
            ? "Queued, oldest and dead letters from the outbox every collector shares; sent, retried and dead since start are "
                + "each collector's own (its /metrics), so this dashboard, which delivers nothing, shows them as —."
            : "Queued, oldest and dead letters from the outbox every collector shares; sent, retried and dead count this "
                + "collector's attempts since it started (its /metrics has them too).")
            + " The last error is the newest failed attempt's: a status or a connection error, never a body."
        section.retryCommand = dead > 0 ? Self.retryCommand(destination: nil) : nil
        return section
    }

    /// A duration as people read an age: seconds, minutes, hours or days, the two largest units.
    static func age(_ interval: TimeInterval) -> String {
        let seconds = max(Int(interval.rounded(.down)), 0)
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min \(seconds % 60) s"
        case ..<86_400: return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        default: return "\(seconds / 86_400) d \(seconds % 86_400 / 3600) h"
        }
    }
}
