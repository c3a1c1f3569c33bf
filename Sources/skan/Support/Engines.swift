import SKANStore
import SKANStorePostgres
import SKANStoreSQLite

/// The storage engines `--db` can name, asked in this order: the first that claims a location opens it. The one
/// file of the command line that names engines; SQLite, which takes any path, comes last.
enum Engines {
    static let all: [any StorageEngine] = [PostgresEngine(), SQLiteEngine()]
}
