import SKANCore

/// Names of the counters behind ``StoreStats``, the same in every engine that keeps counters.
public enum StatCounter {
    /// `postbacks:4.0` counts the stored postbacks of SKAdNetwork 4.0 (``PostbackCounterKey/counterName``).
    public static let postbacksPrefix = "postbacks:"
    /// `rejected:malformed` counts the kept refusals of that status (the cap's deletions take them off).
    public static let rejectedPrefix = "rejected:"
    /// Refusals the cap deleted, in all.
    public static let rejectedDropped = "rejected_dropped"
    /// Accepted postbacks that were duplicates of stored ones, in all.
    public static let duplicates = "duplicates"
    /// Duplicates whose unsigned values differed from the stored postback's (``RepeatComparison/isConflict``).
    public static let conflicts = "conflicts"
    /// `conflicts:country` counts the conflicts in which that value differed (``RepeatTable/compared`` names; a
    /// conflict counts under each value that differed).
    public static let conflictsFieldPrefix = "conflicts:"

    /// The counters one kept conflict adds to: ``conflicts`` and one per value that differed.
    public static func conflictCounters(_ differing: [String]) -> [String] {
        [conflicts] + differing.map { conflictsFieldPrefix + $0 }
    }
}

/// What a stored postback is counted under: its framework, and that framework's version where it sends one
/// (AdAttributionKit sends none), so that a framework's name is never read as a version.
public struct PostbackCounterKey: Sendable, Hashable {
    /// The framework.
    public var framework: Framework
    /// Its version, when it has one.
    public var version: String?

    /// Makes a key.
    public init(framework: Framework, version: String?) {
        self.framework = framework
        self.version = version
    }

    /// The counter's name: `postbacks:` and the version for SKAdNetwork (`postbacks:4.0`), the framework's name for
    /// the others (`postbacks:adattributionkit`), with `:` and the version when they send one. These are the names
    /// every release has stored, so no migration renames a counter.
    public var counterName: String {
        guard framework != .skadnetwork else { return StatCounter.postbacksPrefix + (version ?? framework.rawValue) }
        return StatCounter.postbacksPrefix + framework.rawValue + (version.map { ":" + $0 } ?? "")
    }

    /// The key `name` counts, or `nil` for a counter of something else.
    public init?(counterName name: String) {
        guard name.hasPrefix(StatCounter.postbacksPrefix) else { return nil }
        let rest = name.dropFirst(StatCounter.postbacksPrefix.count)
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        if let framework = Framework(rawValue: String(parts[0])) {
            self.init(framework: framework, version: parts.count == 2 ? String(parts[1]) : nil)
        } else {
            self.init(framework: .skadnetwork, version: String(rest))
        }
    }
}

extension StoreStats {
    /// The stats from counters by name (each name once: an engine that keeps several rows per name sums them).
    public init(counters: [(name: String, value: Int)]) {
        var keys: [PostbackCounterKey: Int] = [:], statuses: [String: Int] = [:], dropped = 0, duplicates = 0, conflicts = 0
        var byField: [String: Int] = [:]
        for (name, value) in counters {
            if name.hasPrefix(StatCounter.conflictsFieldPrefix) {
                if value > 0 { byField[String(name.dropFirst(StatCounter.conflictsFieldPrefix.count)), default: 0] += value }
            } else if name == StatCounter.rejectedDropped {
                dropped = value
            } else if name == StatCounter.duplicates {
                duplicates = value
            } else if name == StatCounter.conflicts {
                conflicts = value
            } else if value > 0, let key = PostbackCounterKey(counterName: name) {
                keys[key, default: 0] += value
            } else if value > 0, name.hasPrefix(StatCounter.rejectedPrefix) {
                statuses[String(name.dropFirst(StatCounter.rejectedPrefix.count))] = value
            }
        }
        self.init(postbacks: keys.values.reduce(0, +), postbacksByKey: keys,
                  rejected: statuses.values.reduce(0, +), rejectedByStatus: statuses, rejectedDropped: dropped,
                  duplicates: duplicates, conflicts: conflicts, conflictsByField: byField)
    }
}
