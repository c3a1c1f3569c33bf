extension RelayHeader {
    /// Headers every request carries, set by the relay itself: a destination may not give them.
    static let reserved: Set<String> = ["host", "content-length", "content-type", "transfer-encoding", "connection",
                                        "idempotency-key", "expect", "upgrade", "te", "trailer"]

    /// Why `name` cannot name a header of a destination's requests, or `nil`: a token of RFC 9110 §5.6.2, not one
    /// the relay sets. Checked once when the configuration is read, since requests are written without a check.
    static func problem(name: String) -> String? {
        guard !name.isEmpty else { return "expected a header name, got an empty one" }
        let token = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"),
                 UInt8(ascii: "0") ... UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
        guard token else { return "expected a header name of letters, digits and !#$%&'*+-.^_`|~, got \"\(name.prefix(60))\"" }
        if reserved.contains(name.lowercased()) { return "\"\(name)\" is set by the relay on every request" }
        return nil
    }

    /// Why `value` cannot be a header's value, or `nil`: no control characters but tab (a line break would end the
    /// header and start another). The value itself is not repeated: it may be a secret.
    static func problem(value: String) -> String? {
        let control = value.utf8.first { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
        return control.map { "the value holds a control character (0x\(String($0, radix: 16, uppercase: true))), expected none" }
    }
}
