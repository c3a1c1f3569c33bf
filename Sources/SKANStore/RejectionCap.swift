/// How much of the refused traffic the store keeps, so that a flood of bad bodies cannot fill the disk.
///
/// The table works as a ring: when it holds more than ``maximumRows``, the oldest rows go and the
/// `rejected_dropped` counter says how many. Recent refusals are the ones worth reading. Each row is bounded
/// too: the body is cut to ``maximumBodyBytes`` (its full length recorded beside it) and every other value the
/// client chose (version, transaction id, ad network id, field, endpoint) to ``maximumValueBytes``, the reason
/// to ``maximumReasonBytes``, each cut value ending in its original length (see `Excerpt`).
public struct RejectionCap: Sendable, Hashable {
    /// Rows kept at most.
    public var maximumRows: Int
    /// Bytes of each refused body kept at most (its full length is recorded beside it).
    public var maximumBodyBytes: Int
    /// Bytes kept at most of each short text value a client sent.
    public var maximumValueBytes: Int
    /// Bytes kept at most of the reason (which quotes what was sent).
    public var maximumReasonBytes: Int

    /// Makes a cap. The defaults keep 100,000 rows of at most ``maximumRowBytes`` (4,928 bytes): under 500 MB.
    public init(maximumRows: Int = 100_000, maximumBodyBytes: Int = 4096, maximumValueBytes: Int = 96,
                maximumReasonBytes: Int = 256) {
        self.maximumRows = maximumRows
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumValueBytes = maximumValueBytes
        self.maximumReasonBytes = maximumReasonBytes
    }

    /// The most one refusal's values take: the body, five client values, the reason, and 96 bytes for the
    /// fixed-size columns (id, time, status, body length) and the row's header.
    public var maximumRowBytes: Int { maximumBodyBytes + 5 * maximumValueBytes + maximumReasonBytes + 96 }

    /// The most the kept refusals take, before the engine's own overhead (pages, indexes).
    public var maximumBytes: Int { maximumRows * maximumRowBytes }
}
