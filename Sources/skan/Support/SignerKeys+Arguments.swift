import Foundation
import SKANSigner

extension SignerKeys {
    /// The keys named by `--key` (or `--signer-key`) arguments, each `[AD-NETWORK-ID=]PEM`: with an id, the key signs
    /// for that network only; without, for any. A path that exists with an `=` in it is a path, not an id.
    static func load(_ arguments: [String], option: String) throws(CLIError) -> SignerKeys {
        var keys = SignerKeys()
        for argument in arguments {
            var network: String?
            var path = argument
            if let equals = argument.firstIndex(of: "="), !FileManager.default.fileExists(atPath: argument) {
                network = String(argument[..<equals])
                path = String(argument[argument.index(after: equals)...])
            }
            keys.add(try KeyFiles.privateKeyKeptSecret(path, option: option), network: network)
        }
        return keys
    }
}
