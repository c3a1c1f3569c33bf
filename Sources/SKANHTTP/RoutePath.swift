/// Request paths as Hummingbird's router matches them, for the handlers that answer ahead of it.
public enum RoutePath {
    /// `path` without its query or fragment and without trailing slashes: `/postbacks/?a=b` is `/postbacks`.
    ///
    /// Read as UTF-8 bytes: it runs for every request the event-loop handlers see, and counting characters would
    /// walk the path's grapheme clusters for each slash removed. The three bytes looked for are ASCII, so where they
    /// stand is always a character boundary.
    public static func normalized(_ path: some StringProtocol) -> String {
        let path = Substring(path)  // shares the string's storage
        let bytes = path.utf8
        var end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        while bytes.distance(from: bytes.startIndex, to: end) > 1, bytes[bytes.index(before: end)] == UInt8(ascii: "/") {
            end = bytes.index(before: end)
        }
        return String(path[..<end])
    }
}
