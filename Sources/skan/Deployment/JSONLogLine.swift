import Foundation
import Logging
import SKANCore

/// A log line as a JSON object (`--log-format json`):
/// `{"time":"2026-11-20T08:00:00Z","level":"info","label":"skan.serve","event":"listener.descriptor_limit",
/// "message":"descriptor limit","source":"skan","soft":"1024",...}`, the metadata as members after the fixed ones.
///
/// Values are escaped as the text lines escape them (``Excerpt/printable(_:maximumBytes:)``: a U+202E is
/// written as the six characters `\u{202e}`), then as JSON; every line, its newline included, is at most
/// ``DeferredMetadataLogHandler/maximumLineBytes``, the longest values cut first, and stays valid JSON. Like the
/// text lines they carry no body and no signature unless the collector logs them (`--log-bodies`).
enum JSONLogLine {
    /// The fixed members, in this order, before the metadata's; a metadata key equal to one is written
    /// `metadata.KEY`.
    static let fixedMembers = ["time", "level", "label", "event", "message", "source"]

    /// The event names of SKANKit's own messages, by the message's start. Any other message (a library's) is named
    /// by its leading words (``slug(_:)``); a call site may also name its event with an `event` metadata value.
    static let events: [(prefix: String, event: String)] = [
        ("refused a postback", "postback.refused"),
        ("the store failed", "store.failed"),
        ("stopped; the store is closed", "collector.stopped"),
        ("descriptor limit", "listener.descriptor_limit"),
        ("--max-connections lowered", "listener.max_connections_lowered"),
        ("connection budget reached", "listener.connection_budget_reached"),
        ("Chart.js is not installed", "dashboard.charts_missing"),
        ("the refusal cap's job failed", "store.refusal_cap_failed"),
        ("cannot fold the counters", "store.counters_fold_failed"),
        ("removed expired web ads", "signer.web_ads_expired"),
        ("cannot remove expired web ads", "signer.web_ads_expiry_failed"),
    ]

    /// The event name of `message`.
    static func event(for message: String) -> String {
        events.first { message.hasPrefix($0.prefix) }?.event ?? slug(message)
    }

    /// A message's words up to its first character other than a letter or a space, lower-cased and joined by `_`
    /// (at most six): "Server started and listening on 127.0.0.1:8080" is `server_started_and_listening_on`, the
    /// same whatever the address.
    static func slug(_ message: String) -> String {
        let words = message.prefix { $0.isLetter || $0 == " " }.lowercased().split(separator: " ").prefix(6)
        return words.isEmpty ? "message" : words.joined(separator: "_")
    }

    /// One line: a JSON object and a newline, at most ``DeferredMetadataLogHandler/maximumLineBytes``.
    static func line(time: String, level: Logger.Level, label: String, metadata: Logger.Metadata, source: String,
                     message: String) -> String {
        let bound = DeferredMetadataLogHandler.maximumValueBytes
        var metadata = metadata
        let named = metadata.removeValue(forKey: "event").map { Excerpt.printable("\($0)", maximumBytes: 64) }
        var members: [(key: String, value: String)] = [
            ("time", time), ("level", "\(level)"), ("label", Excerpt.printable(label, maximumBytes: 64)),
            ("event", named ?? event(for: message)), ("message", Excerpt.printable(message, maximumBytes: bound)),
            ("source", Excerpt.printable(source, maximumBytes: 64)),
        ]
        let fixed = members.count
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let key = Excerpt.printable(key, maximumBytes: 64)
            members.append((fixedMembers.contains(key) ? "metadata." + key : key,
                            Excerpt.printable("\(DeferredMetadataLogHandler.printable(value))", maximumBytes: bound)))
        }
        func size() -> Int { rendered(members).utf8.count }
        let limit = DeferredMetadataLogHandler.maximumLineBytes
        // The message and the metadata's values are cut, the longest first; the time, level, label, event and
        // source are short by construction.
        var over = size() - limit
        while over > 0 {
            let cuttable = members.indices.filter { $0 >= fixed || members[$0].key == "message" }
            guard let longest = cuttable.max(by: { members[$0].value.utf8.count < members[$1].value.utf8.count }),
                  members[longest].value.utf8.count > DeferredMetadataLogHandler.minimumValueBytes else { break }
            let value = members[longest].value
            members[longest].value = Excerpt.of(value, maximumBytes: max(DeferredMetadataLogHandler.minimumValueBytes,
                                                                         value.utf8.count - over))
            over = size() - limit
        }
        // Too many members to fit even cut: the last ones are left out, and counted.
        if size() > limit {
            var dropped = 0
            func counted() -> [(key: String, value: String)] { members + [("dropped", "\(dropped)")] }
            while members.count > fixed, rendered(counted()).utf8.count > limit {
                members.removeLast()
                dropped += 1
            }
            members = counted()
        }
        return rendered(members)
    }

    private static func rendered(_ members: [(key: String, value: String)]) -> String {
        "{" + members.map { "\"\(escaped($0.key))\":\"\(escaped($0.value))\"" }.joined(separator: ",") + "}\n"
    }

    /// `text` as the inside of a JSON string: `"` and `\` escaped, any control character as `\u00XX`.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// UTC, to the second: `2026-11-20T08:00:00Z`.
    static func time() -> String {
        var buffer = [CChar](repeating: 0, count: 32)
        var now = Foundation.time(nil)
        var parts = tm()
        guard gmtime_r(&now, &parts) != nil else { return "unknown" }
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
