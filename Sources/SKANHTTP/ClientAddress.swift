import Foundation
import HTTPTypes
import NIOCore

/// An IPv4 or IPv6 address as 16 bytes (IPv4 as `::ffff:a.b.c.d`): a small value to key tables by, made from a
/// socket address without formatting it as text.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address's first and last eight bytes, in network order.
    public let high: UInt64
    public let low: UInt64

    /// The IPv4 prefix of an IPv4 address mapped into IPv6.
    static let mappedIPv4High: UInt64 = 0
    static let mappedIPv4Marker: UInt64 = 0xFFFF_0000_0000

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The address of `socket`, or `nil` for a Unix-domain socket.
    public init?(_ socket: SocketAddress?) {
        switch socket {
        case .v4(let address):
            self.init(ipv4: UInt32(bigEndian: address.address.sin_addr.s_addr))
        case .v6(let address):
            self.init(address.address.sin6_addr)
        case .unixDomainSocket, nil:
            return nil
        }
    }

    init(ipv4: UInt32) {
        self.init(high: Self.mappedIPv4High, low: Self.mappedIPv4Marker | UInt64(ipv4))
    }

    /// The address in `text` (`192.0.2.1`, `2001:db8::1`), or `nil` when it is not one.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.init(v6)
    }

    init(_ v6: in6_addr) {
        var bytes = v6
        let words = withUnsafeBytes(of: &bytes) { raw -> (UInt64, UInt64) in
            (raw.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, raw.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        self.init(high: words.0, low: words.1)
    }

    /// Whether it is an IPv4 address (mapped).
    public var isIPv4: Bool { high == Self.mappedIPv4High && low >> 32 == Self.mappedIPv4Marker >> 32 }

    /// The text form: dotted IPv4, or IPv6 as `inet_ntop` writes it.
    public var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\(v4 >> 16 & 0xFF).\(v4 >> 8 & 0xFF).\(v4 & 0xFF)"
        }
        var bytes = in6_addr()
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0 ..< 8 {
                raw[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
                raw[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
            }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A block of addresses, as `--trusted-proxy` takes it: `10.0.0.0/8`, `2001:db8::/32`, or one address.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    let network: IPAddress
    /// The prefix length over the 128-bit form (an IPv4 `/8` is 104).
    let bits: Int
    public let description: String

    /// The range `text` names; throws a one-line reason naming the value.
    public init(_ text: String) throws(AddressRangeError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw AddressRangeError(reason: "--trusted-proxy must be an address or a CIDR block (10.0.0.0/8, 2001:db8::/32), got \"\(text)\"")
        }
        let width = address.isIPv4 ? 32 : 128
        var length = width
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0 ... width).contains(given) else {
                throw AddressRangeError(reason: "--trusted-proxy's prefix length must be 0 to \(width) for \(parts[0]), got \"\(parts[1])\"")
            }
            length = given
        }
        bits = length + (128 - width)
        network = Self.masked(address, bits: bits)
        description = text
    }

    /// Whether `address` is inside the range.
    public func contains(_ address: IPAddress) -> Bool {
        Self.masked(address, bits: bits) == network
    }

    /// `address` with every bit after the first `bits` cleared.
    static func masked(_ address: IPAddress, bits: Int) -> IPAddress {
        func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> bits) }
        return IPAddress(high: address.high & mask(bits), low: address.low & mask(bits - 64))
    }
}

/// Why a `--trusted-proxy` value was refused.
public struct AddressRangeError: Error, Sendable, Equatable {
    /// One line naming the value and what was expected.
    public let reason: String

    /// An error saying `reason`.
    public init(reason: String) {
        self.reason = reason
    }
}

/// Who sent a request: the peer's address or, when the peer is a configured trusted proxy (`--trusted-proxy`), the
/// right-most `X-Forwarded-For` entry that is not itself a trusted proxy. Only a trusted proxy's header is read: any
/// client can write one, and the right-most untrusted entry is the first one a trusted hop wrote down rather than
/// passed on.
public struct ClientAddress: Sendable {
    /// The proxies whose `X-Forwarded-For` is believed.
    public let trustedProxies: [AddressRange]

    /// A resolver believing `trustedProxies`; with none, the peer's address is the client's.
    public init(trustedProxies: [AddressRange] = []) {
        self.trustedProxies = trustedProxies
    }

    /// The client's address, given the connection's peer and the request's `X-Forwarded-For` values (each may list
    /// several, comma-separated, the nearest hop last); `nil` when the peer has no IP address.
    public func resolve(peer: IPAddress?, forwardedFor: [String]) -> IPAddress? {
        guard let peer else { return nil }
        guard !trustedProxies.isEmpty, isTrusted(peer), !forwardedFor.isEmpty else { return peer }
        var nearest = peer
        for value in forwardedFor.reversed() {
            for entry in value.split(separator: ",").reversed() {
                // Anything that is not an address (a port, `unknown`, a typo) ends the walk at the last hop read.
                guard let address = IPAddress(entry.trimmingCharacters(in: .whitespaces)) else { return nearest }
                guard isTrusted(address) else { return address }
                nearest = address
            }
        }
        return nearest
    }

    /// The client's address for a request from `peer` with `headers`: ``resolve(peer:forwardedFor:)`` over its
    /// `X-Forwarded-For` fields. What the postback paths (event loop and router alike) store and relay.
    public func resolve(peer: SocketAddress?, headers: HTTPFields) -> IPAddress? {
        resolve(peer: IPAddress(peer), forwardedFor: trustedProxies.isEmpty ? [] : headers[values: .xForwardedFor])
    }

    /// Whether `address` is a trusted proxy.
    public func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
