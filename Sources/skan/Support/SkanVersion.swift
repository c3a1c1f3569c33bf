/// What `skan --version` prints.
enum SkanVersion {
    /// The release, raised with each one that changes the command line or the stored data.
    static let number = "0.9.0"
    /// The version line. The commit is not included: SwiftPM offers a build no way to learn it without a plugin
    /// that runs git, and a copied binary would then name a commit its source may not match.
    static let text = "skan \(number)"
}
