/// One step of one device's story, for `skan simulate --trace`: what happened when, in words.
///
/// Recorded only when a single device is traced, so the run over all devices builds no text.
public struct TraceEvent: Sendable, Hashable {
    /// When it happened, milliseconds since 1970 on the simulated clock.
    public var at: Int64
    /// What happened.
    public var text: String

    /// An event.
    public init(at: Int64, text: String) {
        self.at = at
        self.text = text
    }

    /// The events as lines in time order (equal times keep their order), each led by its ISO 8601 time.
    public static func lines(_ events: [TraceEvent]) -> [String] {
        events.enumerated().sorted { a, b in a.element.at != b.element.at ? a.element.at < b.element.at : a.offset < b.offset }
            .map { "\(SimulatedTime.iso8601($0.element.at))  \($0.element.text)" }
    }
}
