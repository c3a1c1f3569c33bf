import Foundation
import SKANStore

/// Where a PostgreSQL store lives and how many connections it may hold, read from a `postgres://` URL.
public struct PostgresStoreConfiguration: Sendable, Hashable {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to log in as.
    public var user: String
    /// The role's password, when the server asks for one.
    public var password: String?
    /// The database.
    public var database: String
    /// Connections the store's pool opens at most: the collector writes on one at a time and reads on the
    /// others, so a few suffice, and a fleet of collectors must stay under the server's `max_connections`.
    public var maximumConnections: Int

    /// Makes a configuration.
    public init(host: String, port: Int = 5432, user: String, password: String?, database: String,
                maximumConnections: Int = 8) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.maximumConnections = maximumConnections
    }

    /// Whether `text` names a PostgreSQL database rather than a SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads `postgres://user:password@host:port/database` (or `postgresql://`). What the URL leaves out comes
    /// from libpq's variables (`PGPASSWORD`, `PGUSER`, `PGHOST`, `PGPORT`, `PGDATABASE`) in `environment`, as
    /// `psql` would take them, then from libpq's defaults (localhost, 5432, the user's name as database).
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(StoreError) {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw StoreError(.cannotOpen, "not a postgres:// URL: \(Self.redacting(text))")
        }
        let user = components.user.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"] ?? "postgres"
        let database = String(components.path.drop(while: { $0 == "/" })).removingPercentEncoding ?? ""
        let portText = environment["PGPORT"].flatMap(Int.init)
        self.init(host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGHOST"] ?? "localhost",
                  port: components.port ?? portText ?? 5432, user: user,
                  password: components.password.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"],
                  database: database.isEmpty ? (environment["PGDATABASE"] ?? user) : database)
        for item in components.queryItems ?? [] where item.name == "pool" {
            guard let size = item.value.flatMap(Int.init), size > 0 else {
                throw StoreError(.cannotOpen, "pool= in the database URL must be a positive number, got \"\(item.value ?? "")\"")
            }
            maximumConnections = size
        }
    }

    /// The URL without its password: what logs and messages may show.
    public var redacted: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// `text` with the password of a URL in it replaced by `***`.
    static func redacting(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "postgres://***"
    }
}
