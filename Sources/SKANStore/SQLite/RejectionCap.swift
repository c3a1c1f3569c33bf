/// How much of the refused traffic the store keeps, so that a flood of bad bodies cannot fill the disk.
///
/// The table works as a ring: when it holds more than ``maximumRows``, the oldest rows go and the
/// `rejected_dropped` counter says how many. Recent refusals are the ones worth reading.
public struct RejectionCap: Sendable, Hashable {
    /// Rows kept at most.
    public var maximumRows: Int
    /// Bytes of each refused body kept at most (its full length is recorded beside it).
    public var maximumBodyBytes: Int

    /// Makes a cap. The default keeps 100,000 rows of at most 4 KiB: under 500 MB in the worst case.
    public init(maximumRows: Int = 100_000, maximumBodyBytes: Int = 4096) {
        self.maximumRows = maximumRows
        self.maximumBodyBytes = maximumBodyBytes
    }
}
