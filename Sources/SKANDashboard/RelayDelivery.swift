/// What the relay page shows beside the outbox, from the process that delivers (`skan serve --relay FILE
/// --dashboard-port N`): the destinations it is configured with, and what it has sent, retried and given up on since
/// it started. A dashboard of its own (`skan dashboard`) reads only the outbox, which every collector of a fleet
/// shares; the counts are each collector's, as its `/metrics` gives them.
public struct RelayDelivery: Sendable {
    /// Attempts settled since the process started, for one destination.
    public struct Counts: Sendable, Hashable {
        /// Delivered (2xx).
        public var sent: Int
        /// Failed, to be tried again.
        public var retried: Int
        /// Given up on: made dead letters.
        public var dead: Int

        /// Makes counts.
        public init(sent: Int, retried: Int, dead: Int) {
            self.sent = sent
            self.retried = retried
            self.dead = dead
        }
    }

    /// The destinations, in the configuration's order: shown even with nothing queued.
    public var destinations: [String]
    /// The counts now, per destination.
    public var counts: @Sendable () -> [String: Counts]

    /// Makes the delivery side of the page.
    public init(destinations: [String], counts: @escaping @Sendable () -> [String: Counts]) {
        self.destinations = destinations
        self.counts = counts
    }
}
