import Foundation

/// A strict reader for one JSON object (RFC 8259), made for postbacks: a flat object of a dozen members.
///
/// Why not `JSONSerialization` or `JSONDecoder`: they accept duplicate keys (the last one wins, so two
/// parties can read one body two ways), erase the difference between `42`, `42.0` and `true` behind
/// `NSNumber`, and cost more than the signature check we are trying to keep up with.
/// This reader refuses duplicate keys, invalid UTF-8, raw control characters and nesting past
/// ``maximumDepth``, and it never recurses deeper than that, whatever the input.
public enum JSONObjectReader {
    /// Deepest nesting accepted inside a member's value; postbacks are flat, relays add at most a little.
    public static let maximumDepth = 32

    /// Why a body is not a JSON object.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Byte offset where the problem was found.
        public let offset: Int
        /// What was wrong.
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Reads the members of the single JSON object that makes up `bytes`.
    public static func members(of bytes: some Collection<UInt8>) -> Result<[JSONMember], SyntaxError> {
        if let array = bytes as? [UInt8] { return members(of: array) }
        return members(of: Array(bytes))
    }

    /// Reads the members of the single JSON object that makes up `bytes`.
    ///
    /// Keys found in `knownKeys` come back as the table's own strings: matched from the bytes, not decoded
    /// into a new string each time, and checked for duplicates with a bit mask instead of string comparisons.
    /// The result is the same with or without a table.
    public static func members(of bytes: [UInt8], knownKeys: JSONKeyTable? = nil) -> Result<[JSONMember], SyntaxError> {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(buffer)
            do throws(SyntaxError) {
                return .success(try cursor.readTopLevelObject(knownKeys: knownKeys))
            } catch {
                return .failure(error)
            }
        }
    }
    /// Reads the elements of the single JSON array that makes up `bytes` (nested objects and arrays as their raw
    /// text, read again with ``members(of:knownKeys:)`` when needed), refusing more than `maximumCount`.
    public static func elements(ofArray bytes: [UInt8], maximumCount: Int) -> Result<[JSONValue], SyntaxError> {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(buffer)
            do throws(SyntaxError) {
                return .success(try cursor.readTopLevelArray(maximumCount: maximumCount))
            } catch {
                return .failure(error)
            }
        }
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func fail(_ reason: String) -> JSONObjectReader.SyntaxError {
        .init(offset: index, reason: reason)
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "the end of the body" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// `what` is an autoclosure so that the message is built only when it is needed, not for every key.
    mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(JSONObjectReader.SyntaxError) {
        skipWhitespace()
        guard peek == byte else { throw fail("expected \(what()), found \(describe(peek))") }
        index += 1
    }

    mutating func readTopLevelObject(knownKeys: JSONKeyTable?) throws(JSONObjectReader.SyntaxError) -> [JSONMember] {
        // A UTF-8 byte order mark is not JSON text (RFC 8259 §8.1 lets us refuse it).
        skipWhitespace()
        guard let first = peek else { throw fail("the body is empty, expected a JSON object") }
        guard first == UInt8(ascii: "{") else {
            throw fail("expected a JSON object starting with '{', found \(describe(first))")
        }
        index += 1
        var members: [JSONMember] = []
        members.reserveCapacity(16)
        // Duplicate keys: known keys by a bit each; the others by a linear scan, cheaper than hashing for
        // the few a relay adds, with a set taking over for bodies with many keys so that a hostile one
        // cannot make this quadratic.
        var knownSeen: UInt64 = 0
        var otherKeys: [String] = []
        var otherSeen: Set<String>? = nil
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw fail("expected a key string, found \(describe(peek))") }
                let keyStart = index
                let (key, known) = try readKey(knownKeys)
                let isDuplicate: Bool
                if let known {
                    isDuplicate = knownSeen & (1 << known) != 0
                    knownSeen |= 1 << known
                } else if otherKeys.count < 32 {
                    isDuplicate = otherKeys.contains(key)
                    otherKeys.append(key)
                } else {
                    if otherSeen == nil { otherSeen = Set(otherKeys) }
                    isDuplicate = !otherSeen!.insert(key).inserted
                }
                if isDuplicate {
                    index = keyStart
                    throw fail("duplicate key \(JSONWriter.quoted(key))")
                }
                try expect(UInt8(ascii: ":"), "':' after key \(JSONWriter.quoted(key))")
                skipWhitespace()
                let value = try readValue(depth: 1)
                members.append(JSONMember(key: key, value: value))
                skipWhitespace()
                guard let next = peek else { throw fail("the object is not closed, expected ',' or '}'") }
                index += 1
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else {
                    index -= 1
                    throw fail("expected ',' or '}' after the value of \(JSONWriter.quoted(key)), found \(describe(next))")
                }
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected \(describe(peek)) after the JSON object") }
        return members
    }

    mutating func readTopLevelArray(maximumCount: Int) throws(JSONObjectReader.SyntaxError) -> [JSONValue] {
        skipWhitespace()
        guard peek == UInt8(ascii: "[") else { throw fail("expected a JSON array starting with '[', found \(describe(peek))") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard elements.count < maximumCount else { throw fail("more than \(maximumCount) elements") }
                elements.append(try readValue(depth: 1))
                skipWhitespace()
                guard let next = peek else { throw fail("the array is not closed, expected ',' or ']'") }
                index += 1
                if next == UInt8(ascii: "]") { break }
                guard next == UInt8(ascii: ",") else {
                    index -= 1
                    throw fail("expected ',' or ']' after an element, found \(describe(next))")
                }
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected \(describe(peek)) after the JSON array") }
        return elements
    }

    mutating func readValue(depth: Int) throws(JSONObjectReader.SyntaxError) -> JSONValue {
        guard let byte = peek else { throw fail("expected a value, found the end of the body") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let start = index
            try skipContainer(depth: depth)
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return byte == UInt8(ascii: "{") ? .object(text) : .array(text)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw fail("expected a value, found \(describe(byte))")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONObjectReader.SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              memcmpEqual(word.utf8Start, count) else { throw fail("expected \(word)") }
        index += count
    }

    func memcmpEqual(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for offset in 0..<count where bytes[index + offset] != pointer[offset] { return false }
        return true
    }

    mutating func readNumber() throws(JSONObjectReader.SyntaxError) -> String {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let lead = peek, isDigit(lead) else { throw fail("expected a digit in a number") }
        index += 1
        if lead == UInt8(ascii: "0") {
            if let next = peek, isDigit(next) { throw fail("a number may not have a leading zero") }
        } else {
            while let next = peek, isDigit(next) { index += 1 }
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let next = peek, isDigit(next) else { throw fail("expected a digit after '.'") }
            while let next = peek, isDigit(next) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let next = peek, isDigit(next) else { throw fail("expected a digit in an exponent") }
            while let next = peek, isDigit(next) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Reads a key starting at its opening quote, and its index when `table` has it. A plain ASCII key (no
    /// escapes, the usual case) is matched from the bytes, without decoding a string; any other key is
    /// decoded first, so that an escaped spelling of a known key is still that key.
    mutating func readKey(_ table: JSONKeyTable?) throws(JSONObjectReader.SyntaxError) -> (String, Int?) {
        guard let table else { return (try readString(), nil) }
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            guard byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20, byte < 0x80 else { break }
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let found = table.index(of: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]))
            if let found {
                index = end + 1
                return (table.keys[found], found)
            }
        }
        let key = try readString()
        return (key, table.index(of: key))
    }

    /// Reads a string starting at its opening quote.
    mutating func readString() throws(JSONObjectReader.SyntaxError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, the common case for every postback field. ASCII needs no validation;
        // anything else goes through the standard library's UTF-8 validation.
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let decoded = isASCII ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
                guard let text = decoded else {
                    index = start
                    throw fail("invalid UTF-8 in a string")
                }
                index += 1
                return text
            }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("a raw control character (0x\(String(byte, radix: 16))) inside a string") }
            index += 1
        }
        guard index < bytes.count else { throw fail("a string is not closed") }
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: decoded, as: UTF8.self) else {
                    index = start
                    throw fail("invalid UTF-8 in a string")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = peek else { throw fail("a string is not closed") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("an unpaired UTF-16 surrogate escape")
                        }
                        index += 2
                        let low = try readHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("an unpaired UTF-16 surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("an unpaired UTF-16 surrogate escape")
                    }
                    // Every value here is a valid scalar: surrogates were paired or refused above.
                    decoded.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    index -= 1
                    throw fail("an unknown escape \\\(describe(escape))")
                }
            default:
                if byte < 0x20 { throw fail("a raw control character (0x\(String(byte, radix: 16))) inside a string") }
                decoded.append(byte)
                index += 1
            }
        }
        throw fail("a string is not closed")
    }

    mutating func readHex4() throws(JSONObjectReader.SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Checks a nested object or array and steps past it.
    mutating func skipContainer(depth: Int) throws(JSONObjectReader.SyntaxError) {
        guard depth <= JSONObjectReader.maximumDepth else {
            throw fail("nesting deeper than \(JSONObjectReader.maximumDepth) levels")
        }
        let isObject = bytes[index] == UInt8(ascii: "{")
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        index += 1
        skipWhitespace()
        if peek == close { index += 1; return }
        while true {
            skipWhitespace()
            if isObject {
                guard peek == UInt8(ascii: "\"") else { throw fail("expected a key string, found \(describe(peek))") }
                _ = try readString()
                try expect(UInt8(ascii: ":"), "':'")
                skipWhitespace()
            }
            if let byte = peek, byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                try skipContainer(depth: depth + 1)
            } else {
                _ = try readValue(depth: depth + 1)
            }
            skipWhitespace()
            guard let next = peek else { throw fail("a nested value is not closed") }
            index += 1
            if next == close { return }
            guard next == UInt8(ascii: ",") else {
                index -= 1
                throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(describe(next))")
            }
        }
    }
}
