import ArgumentParser
import SKANStore

/// `skan serve`'s retention: how many days accepted postbacks and their raw bodies are kept (docs/guides/deployment.md).
struct RetentionOptions: ParsableArguments {
    @Option(help: "Days accepted postbacks are kept; older ones are deleted in small batches (default: kept for ever). Rollups, and reports read from them, keep every day.")
    var retainDays: Int?

    @Option(help: "Days the raw bodies and client addresses of accepted postbacks are kept; older ones are emptied, their rows and fields kept (default: as long as the rows).")
    var retainBodyDays: Int?

    /// The retention asked for.
    var retention: Retention {
        Retention(postbackDays: retainDays, bodyDays: retainBodyDays)
    }
}
