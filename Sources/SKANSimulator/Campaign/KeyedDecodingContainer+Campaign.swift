/// Decoding helpers whose errors say what was expected, so that ``CampaignFile`` can name the path and the rule.
extension KeyedDecodingContainer {
    /// A "the value at this key is wrong" error carrying the key's full path.
    func invalid(_ key: Key, _ expected: String) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected \(expected)")
    }

    /// A string that must be one of an enum's raw values.
    func decodeChoice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type, forKey key: Key) throws -> Choice
    where Choice.RawValue == String {
        let text = try decode(String.self, forKey: key)
        guard let choice = Choice(rawValue: text) else {
            throw invalid(key, "one of \(Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \"\(text)\"")
        }
        return choice
    }

    /// An integer in a range; absent means `defaultValue`, or an error when there is none.
    func decodeInteger(forKey key: Key, in range: ClosedRange<Int>, default defaultValue: Int?) throws -> Int {
        guard contains(key) else {
            if let defaultValue { return defaultValue }
            return try decode(Int.self, forKey: key)
        }
        let value = try decode(Int.self, forKey: key)
        guard range.contains(value) else { throw invalid(key, "an integer \(range.lowerBound)...\(range.upperBound), got \(value)") }
        return value
    }

    /// A number in a range; absent means `defaultValue`, or an error when there is none.
    func decodeRate(forKey key: Key, in range: ClosedRange<Double>, default defaultValue: Double?) throws -> Double {
        guard contains(key) else {
            if let defaultValue { return defaultValue }
            return try decode(Double.self, forKey: key)
        }
        let value = try decode(Double.self, forKey: key)
        guard range.contains(value) else { throw invalid(key, "a number \(range.lowerBound)...\(range.upperBound), got \(value)") }
        return value
    }

    /// `[low, high]` or a single number, inside `bounds`.
    func decodeRange(_ type: Double.Type, forKey key: Key, within bounds: ClosedRange<Double>) throws -> ClosedRange<Double> {
        let pair: [Double]
        if let single = try? decode(Double.self, forKey: key) {
            pair = [single, single]
        } else if let list = try? decode([Double].self, forKey: key), list.count == 2 {
            pair = list
        } else {
            throw invalid(key, "[low, high] or one number")
        }
        guard pair[0] <= pair[1], bounds.contains(pair[0]), bounds.contains(pair[1]) else {
            throw invalid(key, "[low, high] with low ≤ high, both within \(bounds.lowerBound)...\(bounds.upperBound), got [\(pair[0]), \(pair[1])]")
        }
        return pair[0]...pair[1]
    }
}

/// A coding key for an array position, for paths built by hand.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// A coding key for a field name, for paths built by hand.
struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
