/// What `skan --version` prints.
enum SkanVersion {
    /// The release, raised with each one that changes the command line or the stored data.
    static let number = "0.9.0"
    /// The version line with the commit the binary was built from (`BuildCommit`, written by the GitCommit build
    /// plugin), so a bug report can name the exact source; "unknown" when it was built outside a git checkout.
    static let text = "skan \(number) (\(BuildCommit.short))"
}
