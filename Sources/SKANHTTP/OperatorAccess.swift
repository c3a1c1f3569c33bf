import Foundation
import HTTPTypes
import NIOCore
import SKANCore

/// The one rule for every private (operator) listener: the collector's `/stats`, `/metrics` and stored postbacks,
/// the signer's API, the dashboard.
///
/// A listener bound to a loopback address (127.0.0.0/8, `::1`) is open to this machine; any other address needs a
/// bearer token, read from a file of mode 0600 (``token(fromFile:option:)``), or the listener refuses to start.
/// Loopback is decided by the address the host resolves to, and the listener then binds that very address
/// (``bindHost``): a name is never trusted for its spelling (`127.evil.example` is a DNS name like any other), and
/// is not resolved twice, so what was checked is what is bound.
///
/// With a token, a request gets in with `Authorization: Bearer TOKEN`, or with the login cookie that
/// ``login(offered:secure:)`` issues (a browser cannot add a header to a link it follows). The cookie holds a random
/// value made per process, never the token; both are compared in constant time.
///
/// Why not hummingbird-auth's authenticators: the rule must also hold in ``EventLoopFastPath``, which answers
/// ahead of the router where there is no request context to authenticate into, so it is written once here over
/// `HTTPFields` and used by both (``OperatorAccessMiddleware`` on the router).
public struct OperatorAccess: Sendable {
    /// The option names a refusal names, so that the operator knows what to change.
    public struct Options: Sendable {
        /// The option that sets the listener's address.
        public var host: String
        /// The option that names the token file.
        public var tokenFile: String

        /// Names for the messages.
        public init(host: String, tokenFile: String) {
            self.host = host
            self.tokenFile = tokenFile
        }
    }

    /// The address the listener binds: the numeric address the rule was decided on.
    public let bindHost: String
    /// Whether ``bindHost`` is a loopback address.
    public let isLoopback: Bool
    private let token: [UInt8]?
    /// The login cookie's value: random, made once per process.
    private let session: [UInt8]

    /// The login cookie's name.
    public static let cookieName = "skan_session"

    /// Loopback (127.0.0.1) without a token: this machine only.
    public static let loopback = OperatorAccess(bindHost: "127.0.0.1", isLoopback: true, token: nil)

    /// Whether requests must carry the token.
    public var requiresToken: Bool { token != nil }

    /// The rule for a listener on `host` (a numeric address or a name, resolved once): loopback needs nothing; any
    /// other address needs `token`, or this throws naming `options`. A token, when given, is required on loopback too.
    /// `resolve` turns a name into an address (the system resolver; tests pass their own).
    public init(host: String, token: String?, options: Options,
                resolve: (String) throws -> SocketAddress = OperatorAccess.resolve) throws(OperatorAccessError) {
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let address: SocketAddress
        do {
            address = try resolve(trimmed)
        } catch {
            throw OperatorAccessError(.access, "\(options.host) \(host): cannot resolve it to an address (\(error))")
        }
        guard let numeric = address.ipAddress else {
            throw OperatorAccessError(.access, "\(options.host) \(host): not an IP address")
        }
        let loopback = Self.isLoopback(address)
        if token == nil && !loopback {
            let resolved = numeric == trimmed ? "" : " (\(numeric))"
            throw OperatorAccessError(.access, "\(options.host) \(host)\(resolved) is not a loopback address: operator "
                                      + "routes carry business data, so give it \(options.tokenFile) FILE, a file of "
                                      + "mode 600 holding a token (requests then need Authorization: Bearer TOKEN)")
        }
        if let token, token.isEmpty {
            throw OperatorAccessError(.access, "\(options.tokenFile): an empty token would let everyone in")
        }
        self.init(bindHost: numeric, isLoopback: loopback, token: token)
    }

    private init(bindHost: String, isLoopback: Bool, token: String?) {
        self.bindHost = bindHost
        self.isLoopback = isLoopback
        self.token = token.map { Array($0.utf8) }
        // 256 bits from the system's generator (getrandom on Linux), as 64 hex digits.
        var random = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        session = (0..<64).map { _ in digits[Int.random(in: 0..<16, using: &random)] }
    }

    /// 127.0.0.0/8, `::1`, and IPv4 loopback mapped into IPv6 (`::ffff:127.x.y.z`): decided on the address, as
    /// `inet_ntop` writes it, never on a host name.
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4:
            return address.ipAddress?.hasPrefix("127.") == true
        case .v6:
            guard let text = address.ipAddress?.lowercased() else { return false }
            return text == "::1" || text.hasPrefix("::ffff:127.")
        case .unixDomainSocket:
            return false
        }
    }

    /// The first address the system resolver gives for `host` (a numeric address is taken as it is).
    @Sendable public static func resolve(_ host: String) throws -> SocketAddress {
        if let numeric = try? SocketAddress(ipAddress: host, port: 0) { return numeric }
        return try SocketAddress.makeAddressResolvingHost(host, port: 0)
    }

    // MARK: Requests

    /// Whether a request with these headers gets in: always without a token; with one, when it carries the token
    /// as a bearer credential or the login cookie.
    public func admits(_ headers: HTTPFields) -> Bool {
        guard let token else { return true }
        if let authorization = headers[.authorization] {
            let scheme = "bearer "
            if authorization.count > scheme.count, authorization.prefix(scheme.count).lowercased() == scheme,
               Self.equal(Array(authorization.utf8.dropFirst(scheme.utf8.count)), token) {
                return true
            }
        }
        for cookies in headers[values: .cookie] {
            for pair in cookies.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard trimmed.hasPrefix(Self.cookieName + "=") else { continue }
                if Self.equal(Array(trimmed.utf8.dropFirst(Self.cookieName.utf8.count + 1)), session) { return true }
            }
        }
        return false
    }

    /// The `Set-Cookie` value that logs a browser in when `offered` is the token, or `nil`. `secure` adds `Secure`
    /// (the request came over TLS, as a proxy in front says with `X-Forwarded-Proto: https`).
    public func login(offered: String, secure: Bool) -> String? {
        guard let token, Self.equal(Array(offered.utf8), token) else { return nil }
        return "\(Self.cookieName)=\(String(decoding: session, as: UTF8.self)); Path=/; HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// Whether a request came over TLS to a proxy in front: `X-Forwarded-Proto: https` or `Forwarded: proto=https`.
    /// A client can claim it without TLS, but all it gains is a cookie its own browser keeps for HTTPS only.
    public static func cameOverTLS(_ headers: HTTPFields) -> Bool {
        if let proto = headers[HTTPField.Name("X-Forwarded-Proto")!], proto.lowercased().hasPrefix("https") { return true }
        if let forwarded = headers[HTTPField.Name("Forwarded")!], forwarded.lowercased().contains("proto=https") { return true }
        return false
    }

    /// The 401 body, the same on every private listener and path.
    public static let unauthorizedBody =
        #"{"status":"unauthorized","reason":"a token is required: Authorization: Bearer TOKEN"}"#

    /// The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3).
    public static let challenge = #"Bearer realm="skan""#

    /// Equal in a time that depends on the expected value's length only, not on the offered one nor on where the
    /// first difference is.
    static func equal(_ offered: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = offered.count == expected.count ? 0 : 1
        for (index, byte) in expected.enumerated() {
            difference |= (index < offered.count ? offered[index] : 0) ^ byte
        }
        return difference == 0
    }

    // MARK: Token files

    /// A token from a file: its first line, at least 16 characters; the file must not be readable by group or
    /// others. `option` names the command's option in the error.
    public static func token(fromFile path: String, option: String) throws(OperatorAccessError) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let data = FileManager.default.contents(atPath: path) else {
            throw OperatorAccessError(.access, "\(option): cannot read \(path)")
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw OperatorAccessError(.access, "\(option): \(path) has mode \(String(mode, radix: 8)); it must not be "
                                      + "readable by group or others (chmod 600 \(path))")
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard token.count >= 16 else {
            throw OperatorAccessError(.access, "\(option): \(path) must hold a token of at least 16 characters on its first line")
        }
        return token
    }
}

/// The one error type of `SKANHTTP` (SKANCore's `DomainError` shape: a code and a reason naming the option).
public typealias OperatorAccessError = DomainError<OperatorAccessErrorDomain>

/// The domain of ``OperatorAccessError``.
public enum OperatorAccessErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == OperatorAccessErrorDomain {
    /// A private listener beyond loopback without a token, a host that does not resolve, or a token file that
    /// cannot be used.
    public static let access = Self("access")
}
