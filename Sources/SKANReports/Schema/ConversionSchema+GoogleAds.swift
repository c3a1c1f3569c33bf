import Foundation
import SKANCore

extension ConversionSchema {
    /// Reads Google Ads' `SkAdNetworkConversionValueSchema` (the `schema` of a `CustomerSkAdNetworkConversionValueSchema`,
    /// or that resource itself), in the API's JSON under its documented field names (`app_id`,
    /// `fine_grained_conversion_value_mappings`, `postback_mappings` ...) or their lowerCamelCase JSON forms.
    ///
    /// - `fine_grained_conversion_value_mappings` (4.0: the first postback's) become window 0's fine values.
    /// - Each of `postback_mappings` becomes the coarse values of its `postback_sequence_index`'s window, from its
    ///   `coarse_grained_conversion_value_mappings` (`low_`, `medium_`, `high_conversion_value_mapping`).
    /// - Each of a mapping's `mapped_events` is an event: `mapped_event_name`; its count `event_counter`, or the
    ///   lower end (`min_event_count`) of an `event_occurrence_range`, or 1; its revenue `event_revenue_value`, or an
    ///   `event_revenue_range` from `min_event_revenue` to `max_event_revenue` (0 is unset, as Google documents: an
    ///   unset maximum is read as the minimum). `currency_code` is not converted.
    ///
    /// Every table is narrowed to the schema's `app_id` and in force from the start. The lock-window triggers and
    /// the activity ranges (`min_time_post_install_hours`) say when a value is set, not what it means, and are not read.
    public init(googleAds data: Data, source: String) throws(ReportError) {
        self.init()
        func fail(_ path: String, _ reason: String) -> ReportError {
            ReportError(.invalidSchema, "\(source): \(path.isEmpty ? "" : "\(path): ")\(reason)")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw fail("", "not JSON (\(error.localizedDescription))")
        }
        guard var schema = root as? [String: Any] else { throw fail("", "expected a JSON object") }
        var path = ""
        if let inner = GoogleAdsJSON.value(schema, "schema") {
            guard let object = inner as? [String: Any] else { throw fail("schema", "expected an object") }
            schema = object
            path = "schema."
        }
        guard let app = GoogleAdsJSON.value(schema, "app_id").flatMap(GoogleAdsJSON.text), !app.isEmpty else {
            throw fail("\(path)app_id", "expected the app's App Store id (a SkAdNetworkConversionValueSchema)")
        }
        var tables = 0
        let fine = try GoogleAdsJSON.array(schema, "fine_grained_conversion_value_mappings", path: path, fail)
        for (index, item) in fine.enumerated() {
            let at = "\(path)fine_grained_conversion_value_mappings[\(index)]"
            guard let mapping = item as? [String: Any] else { throw fail(at, "expected an object") }
            guard let value = GoogleAdsJSON.value(mapping, "fine_grained_conversion_value").flatMap(GoogleAdsJSON.integer),
                  (0...63).contains(value) else {
                throw fail("\(at).fine_grained_conversion_value", "expected an integer 0...63, got "
                           + GoogleAdsJSON.shown(GoogleAdsJSON.value(mapping, "fine_grained_conversion_value")))
            }
            for event in try GoogleAdsJSON.events(mapping["conversion_value_mapping"] ?? mapping["conversionValueMapping"],
                                                  path: "\(at).conversion_value_mapping", fail) {
                add(event, fine: value, in: Scope(app: app, window: 0))
            }
            tables = 1
        }
        let postbacks = try GoogleAdsJSON.array(schema, "postback_mappings", path: path, fail)
        for (index, item) in postbacks.enumerated() {
            let at = "\(path)postback_mappings[\(index)]"
            guard let mapping = item as? [String: Any] else { throw fail(at, "expected an object") }
            let window = GoogleAdsJSON.value(mapping, "postback_sequence_index").flatMap(GoogleAdsJSON.integer) ?? 0
            guard (0...2).contains(window) else {
                throw fail("\(at).postback_sequence_index", "expected 0, 1 or 2, got \(window)")
            }
            guard let coarse = GoogleAdsJSON.value(mapping, "coarse_grained_conversion_value_mappings") else { continue }
            guard let levels = coarse as? [String: Any] else {
                throw fail("\(at).coarse_grained_conversion_value_mappings", "expected an object")
            }
            for value in CoarseValue.allCases {
                let name = "\(value.rawValue)_conversion_value_mapping"
                for event in try GoogleAdsJSON.events(GoogleAdsJSON.value(levels, name),
                                                      path: "\(at).coarse_grained_conversion_value_mappings.\(name)", fail) {
                    add(event, coarse: value, in: Scope(app: app, window: window))
                }
            }
            tables += 1
        }
        guard tables > 0 else {
            throw fail(path.isEmpty ? "" : String(path.dropLast()),
                       "no fine_grained_conversion_value_mappings and no postback_mappings: nothing to decode")
        }
    }
}

/// Reading protobuf JSON as Google's API writes it: a field under its proto name or its lowerCamelCase name, and an
/// int64 as a number or as a string.
enum GoogleAdsJSON {
    static func value(_ object: [String: Any], _ name: String) -> Any? {
        if let value = object[name] { return value }
        let parts = name.split(separator: "_")
        let camel = parts.first.map(String.init).map { first in
            first + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        } ?? name
        return object[camel]
    }

    static func text(_ value: Any) -> String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }

    static func integer(_ value: Any) -> Int? {
        if let text = value as? String { return Int(text) }
        if let number = value as? NSNumber, number.doubleValue == number.doubleValue.rounded() { return number.intValue }
        return nil
    }

    static func number(_ value: Any) -> Double? {
        if let text = value as? String { return Double(text) }
        if let number = value as? NSNumber, !(value is Bool) { return number.doubleValue }
        return nil
    }

    static func shown(_ value: Any?) -> String {
        guard let value else { return "nothing" }
        return "\"\(text(value) ?? String(describing: value))\""
    }

    static func array(_ object: [String: Any], _ name: String, path: String,
                      _ fail: (String, String) -> ReportError) throws(ReportError) -> [Any] {
        guard let value = value(object, name) else { return [] }
        guard let array = value as? [Any] else { throw fail("\(path)\(name)", "expected an array") }
        return array
    }

    /// The events of a `ConversionValueMapping` (`mapped_events`).
    static func events(_ mapping: Any?, path: String,
                       _ fail: (String, String) -> ReportError) throws(ReportError) -> [ConversionSchema.Event] {
        guard let mapping else { return [] }
        guard let object = mapping as? [String: Any] else { throw fail(path, "expected an object") }
        var events: [ConversionSchema.Event] = []
        for (index, item) in try array(object, "mapped_events", path: "\(path).", fail).enumerated() {
            let at = "\(path).mapped_events[\(index)]"
            guard let event = item as? [String: Any] else { throw fail(at, "expected an object") }
            guard let name = value(event, "mapped_event_name").flatMap(text), !name.isEmpty else {
                throw fail("\(at).mapped_event_name", "expected the event's name, got \(shown(value(event, "mapped_event_name")))")
            }
            var count = 1
            if let counter = value(event, "event_counter") {
                guard let parsed = integer(counter), parsed >= 0 else {
                    throw fail("\(at).event_counter", "expected a non-negative integer, got \(shown(counter))")
                }
                count = parsed
            } else if let range = value(event, "event_occurrence_range") as? [String: Any],
                      let minimum = value(range, "min_event_count").flatMap(integer), minimum > 0 {
                count = minimum
            }
            var low = 0.0, high = 0.0
            if let revenue = value(event, "event_revenue_value") {
                guard let amount = number(revenue), amount.isFinite, amount >= 0 else {
                    throw fail("\(at).event_revenue_value", "expected a non-negative number, got \(shown(revenue))")
                }
                (low, high) = (amount, amount)
            } else if let range = value(event, "event_revenue_range") as? [String: Any] {
                low = value(range, "min_event_revenue").flatMap(number) ?? 0
                high = value(range, "max_event_revenue").flatMap(number) ?? 0
                if high == 0 { high = low }
                guard low.isFinite, high.isFinite, low >= 0, low <= high else {
                    throw fail("\(at).event_revenue_range", "expected 0 <= min_event_revenue <= max_event_revenue, "
                               + "got \(low) and \(high)")
                }
            }
            events.append(ConversionSchema.Event(name: name, count: count, revenueLow: low, revenueHigh: high))
        }
        return events
    }
}
