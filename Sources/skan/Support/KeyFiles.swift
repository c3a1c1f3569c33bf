import Foundation
import SKANCore

/// Reads keys named on the command line, turning every failure into a one-line ``CLIError``.
enum KeyFiles {
    /// The text of the key file at `path`, or an error naming `option`, the path and why it cannot be read.
    static func text(at path: String, option: String) throws(CLIError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            // The test keys ship with the package, and commands that use them name them relative to its root.
            let hint = path.hasPrefix("Keys/test/") ? "; run skan from the SKANKit package's root folder, where Keys/test/ is" : ""
            throw CLIError("\(option) \(path): no such file\(hint)")
        }
        if isDirectory.boolValue { throw CLIError("\(option) \(path): is a directory, not a key file") }
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError("\(option) \(path): cannot read the key file: \(describe(error))")
        }
    }

    /// A public key from a file (PEM or Base64), or from the argument itself when it is Base64 rather than a path.
    /// `option` names where the argument came from in every message.
    static func publicKey(_ argument: String, option: String) throws(CLIError) -> ECPublicKey {
        // A key in Base64 is at least 64 characters of its alphabet: anything else is meant as a path, and a
        // missing file is reported as such rather than as text that is not Base64.
        let couldBeBase64 = argument.count >= 64 && argument.unicodeScalars.allSatisfy(Self.base64Alphabet.contains)
        let isFile = !couldBeBase64 || FileManager.default.fileExists(atPath: argument)
        let text = isFile ? try text(at: argument, option: option) : argument
        do {
            return try ECPublicKey(text: text, source: isFile ? "\(option) \(argument)" : "\(option) value")
        } catch {
            throw CLIError(error)
        }
    }

    /// A private key from the PEM file at `path`; `option` names the option in every message.
    static func privateKey(_ path: String, option: String) throws(CLIError) -> ECPrivateKey {
        let pem = try text(at: path, option: option)
        do {
            return try ECPrivateKey(pem: pem, source: "\(option) \(path)")
        } catch {
            throw CLIError(error)
        }
    }

    /// A private key that a long-running service will hold: as ``privateKey(_:option:)``, but refused when its file
    /// can be read or written by anyone but its owner (the mode a leaked key file most often has).
    static func privateKeyKeptSecret(_ path: String, option: String) throws(CLIError) -> ECPrivateKey {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            throw CLIError("\(option) \(path): the key file has mode \(String(status.st_mode & 0o777, radix: 8)); a private key "
                           + "must not be open to group or others (chmod 600 \(path))")
        }
        return try privateKey(path, option: option)
    }

    static let base64Alphabet = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           let reason = String(validatingCString: strerror(Int32(underlying.code))) {
            return reason
        }
        return nsError.localizedDescription
    }
}
