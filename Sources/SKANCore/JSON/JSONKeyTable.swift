import Foundation

/// Object keys a reader expects, so that it can match them from the bytes; see
/// ``JSONObjectReader/members(of:knownKeys:)``. At most 64 keys.
public struct JSONKeyTable: Sendable {
    /// The keys, in the order given.
    public let keys: [String]
    private let utf8: [[UInt8]]
    /// For each key length, the indices of the keys that long.
    private let byLength: [[Int]]

    /// A table of `keys`, which must be distinct.
    public init(_ keys: [String]) {
        precondition(keys.count <= 64 && Set(keys).count == keys.count, "at most 64 distinct keys")
        self.keys = keys
        utf8 = keys.map { Array($0.utf8) }
        var byLength = [[Int]](repeating: [], count: (utf8.map(\.count).max() ?? 0) + 1)
        for (index, key) in utf8.enumerated() { byLength[key.count].append(index) }
        self.byLength = byLength
    }

    /// The index of the key whose UTF-8 bytes are `bytes`, if any.
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count < byLength.count else { return nil }
        for candidate in byLength[bytes.count] where utf8[candidate].withUnsafeBufferPointer({ key in
            // An empty key has no bytes to compare (and perhaps no base address).
            key.isEmpty || memcmp(key.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }) {
            return candidate
        }
        return nil
    }

    /// The index of `key`, if it is in the table.
    func index(of key: String) -> Int? {
        var key = key
        return key.withUTF8 { index(of: $0) }
    }
}
