/// Names of the counters behind ``StoreStats``, the same in every engine that keeps counters.
public enum StatCounter {
    /// `postbacks:4.0` counts the stored postbacks of version 4.0.
    public static let postbacksPrefix = "postbacks:"
    /// `rejected:malformed` counts the kept refusals of that status (the cap's deletions take them off).
    public static let rejectedPrefix = "rejected:"
    /// Refusals the cap deleted, in all.
    public static let rejectedDropped = "rejected_dropped"
    /// Accepted postbacks that were duplicates of stored ones, in all.
    public static let duplicates = "duplicates"
}

extension StoreStats {
    /// The stats from counters by name (each name once: an engine that keeps several rows per name sums them).
    public init(counters: [(name: String, value: Int)]) {
        var versions: [String: Int] = [:], statuses: [String: Int] = [:], dropped = 0, duplicates = 0
        for (name, value) in counters {
            if name == StatCounter.rejectedDropped {
                dropped = value
            } else if name == StatCounter.duplicates {
                duplicates = value
            } else if value > 0, name.hasPrefix(StatCounter.postbacksPrefix) {
                versions[String(name.dropFirst(StatCounter.postbacksPrefix.count))] = value
            } else if value > 0, name.hasPrefix(StatCounter.rejectedPrefix) {
                statuses[String(name.dropFirst(StatCounter.rejectedPrefix.count))] = value
            }
        }
        self.init(postbacks: versions.values.reduce(0, +), postbacksByVersion: versions,
                  rejected: statuses.values.reduce(0, +), rejectedByStatus: statuses, rejectedDropped: dropped,
                  duplicates: duplicates)
    }
}
