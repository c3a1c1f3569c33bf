import Foundation

/// Web ads a network registered before serving them (SKAdNetwork for Web Ads, spec §7.2): the signed
/// `AdImpressionResponse` kept under its nonce until Safari asks for it or it expires. Its own table and its own
/// protocol, beside the postbacks table's owner; each engine is a folder or target of its own.
public protocol WebAdStore: HostedStore {
    /// Brings the store's schema up to date (the same numbered migrations as the postbacks store).
    func migrate() async throws(StoreError)
    /// Keeps `ad` under its nonce. A nonce is a fresh UUID, so a second registration of one is refused.
    func register(_ ad: RegisteredWebAd) async throws(StoreError)
    /// The ad registered under `nonce` that has not expired at `now`, or `nil`.
    func ad(nonce: UUID, at now: Date) async throws(StoreError) -> RegisteredWebAd?
    /// Removes the ads expired at `now`; returns how many.
    @discardableResult
    func removeExpired(at now: Date) async throws(StoreError) -> Int
    /// How many ads the store holds (expired ones not yet removed included): what the signer's limit on
    /// registrations is checked against after each sweep.
    func count() async throws(StoreError) -> Int
    /// Lets go of the engine's connections.
    func close() async throws(StoreError)
}

/// One registered web ad.
public struct RegisteredWebAd: Sendable, Hashable {
    /// The impression's nonce.
    public var nonce: UUID
    /// The `source_domain` Safari must name when it asks for it.
    public var sourceDomain: String
    /// The signed `AdImpressionResponse`, as Safari gets it.
    public var response: String
    /// When it stops being served.
    public var expiresAt: Date

    /// Makes a registration.
    public init(nonce: UUID, sourceDomain: String, response: String, expiresAt: Date) {
        self.nonce = nonce
        self.sourceDomain = sourceDomain
        self.response = response
        self.expiresAt = expiresAt
    }

    /// The key a nonce is stored under: the dashed lowercase UUID, as SKAdNetwork signs it.
    public static func key(_ nonce: UUID) -> String { nonce.lowercaseText }
}
