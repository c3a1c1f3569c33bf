import SKANStore

/// Which day a postback counts on: the arrival day, or the estimated install day (the store's read side
/// computes both; see ``AggregateQuery/DayBasis``).
public typealias DayBasis = AggregateQuery.DayBasis
