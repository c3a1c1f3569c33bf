import Foundation
import SKANCore

/// Reads keys named on the command line, turning every failure into a one-line ``CLIError``.
enum KeyFiles {
    static func text(at path: String) throws(CLIError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError("cannot read key file \(path): \(describe(error))")
        }
    }

    /// A public key from a file (PEM or Base64), or from the argument itself when it is Base64 rather than a path.
    static func publicKey(_ argument: String) throws(CLIError) -> ECPublicKey {
        let isFile = FileManager.default.fileExists(atPath: argument)
        let text = isFile ? try text(at: argument) : argument
        do {
            return try ECPublicKey(text: text, source: isFile ? argument : "--public-key value")
        } catch {
            throw CLIError(error)
        }
    }

    static func privateKey(_ path: String) throws(CLIError) -> ECPrivateKey {
        let pem = try text(at: path)
        do {
            return try ECPrivateKey(pem: pem, source: path)
        } catch {
            throw CLIError(error)
        }
    }

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           let reason = String(validatingCString: strerror(Int32(underlying.code))) {
            return reason
        }
        return nsError.localizedDescription
    }
}
