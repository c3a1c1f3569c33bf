/// Request paths as Hummingbird's router matches them, for the handlers that answer ahead of it.
public enum RoutePath {
    /// `path` without its query or fragment and without trailing slashes: `/postbacks/?a=b` is `/postbacks`.
    public static func normalized(_ path: some StringProtocol) -> String {
        var path = path.prefix { $0 != "?" && $0 != "#" }
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
