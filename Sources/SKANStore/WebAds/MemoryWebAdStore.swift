import Foundation
import Synchronization

/// Registered web ads in memory: for tests, and for a signer run without `--db`.
public final class MemoryWebAdStore: WebAdStore {
    private let ads = Mutex<[UUID: RegisteredWebAd]>([:])

    /// An empty store.
    public init() {}

    public func migrate() async throws(StoreError) {}

    public func register(_ ad: RegisteredWebAd) async throws(StoreError) {
        let added = ads.withLock { ads in
            guard ads[ad.nonce] == nil else { return false }
            ads[ad.nonce] = ad
            return true
        }
        guard added else { throw StoreError(.writeFailed, "nonce \(RegisteredWebAd.key(ad.nonce)) is already registered") }
    }

    public func ad(nonce: UUID, at now: Date) async throws(StoreError) -> RegisteredWebAd? {
        ads.withLock { $0[nonce] }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    public func removeExpired(at now: Date) async throws(StoreError) -> Int {
        ads.withLock { ads in
            let expired = ads.values.filter { $0.expiresAt <= now }.map(\.nonce)
            for nonce in expired { ads[nonce] = nil }
            return expired.count
        }
    }

    public func count() async throws(StoreError) -> Int { ads.withLock { $0.count } }

    public func close() async throws(StoreError) {}
}
