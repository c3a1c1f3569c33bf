/// Named text values as a front end hands them over (command-line options, CSV cells, a service's JSON members),
/// read by the impression rules of both frameworks with the same messages: each names the field after `origin`
/// (`--` for options), the value as sent (cut, as every client value quoted back), and what was expected.
struct NamedValues {
    let values: [String: String]
    let origin: String

    /// The value, or an error saying it is required.
    func required(_ name: String) throws(SKANError) -> String {
        guard let value = values[name] else { throw SKANError(.invalidImpression, "\(origin)\(name) is required") }
        return value
    }

    /// The value as an integer, `nil` when absent.
    func integer(_ name: String) throws(SKANError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text) else {
            throw SKANError(.invalidImpression, "\(origin)\(name) must be an integer, got \"\(Excerpt.of(text, maximumBytes: 80))\"")
        }
        return value
    }

    /// The value as an integer, or an error saying it is required.
    func requiredInteger(_ name: String) throws(SKANError) -> Int {
        guard let value = try integer(name) else { throw SKANError(.invalidImpression, "\(origin)\(name) is required") }
        return value
    }
}
