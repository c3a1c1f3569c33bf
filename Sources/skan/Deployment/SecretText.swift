/// Secrets inside values: the password of a URL such as `postgres://skan:PASSWORD@db/skan`.
enum SecretText {
    /// The range of the password in a URL's user information (`scheme://user:PASSWORD@host`), `nil` when it has none.
    static func passwordRange(in text: String) -> Range<String.Index>? {
        guard let scheme = text.range(of: "://") else { return nil }
        let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return nil }
        let password = authority.index(after: colon)..<at
        return password.isEmpty ? nil : password
    }

    /// `text` with a URL's password replaced by `****`.
    static func masked(_ text: String) -> String {
        guard let range = passwordRange(in: text) else { return text }
        var text = text
        text.replaceSubrange(range, with: "****")
        return text
    }
}
