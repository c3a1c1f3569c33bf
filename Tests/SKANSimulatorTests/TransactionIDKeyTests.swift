import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// The key that folds a run's identity into its transaction ids.
@Suite("Transaction id key")
struct TransactionIDKeyTests {
    @Test("the same campaign and seed give the same ids; a campaign with another identity does not")
    func sameRunSameIDs() throws {
        let setup = try Fixtures.setup("skan-4.0-subscription.json")
        let first = TransactionIDTests.ids(setup, seed: 3)
        #expect(first == TransactionIDTests.ids(try Fixtures.setup("skan-4.0-subscription.json"), seed: 3))
        let renamed = try Fixtures.setup("skan-4.0-subscription.json") { $0.identity &+= 1 }
        let other = TransactionIDTests.ids(renamed, seed: 3)
        // Only the ids move: the devices and their postbacks are the same.
        #expect(other.count == first.count)
        #expect(Set(other).isDisjoint(with: first))
    }

    @Test("the id key is a permutation: distinct draws give distinct ids")
    func keyIsAPermutation() {
        let key = TransactionIDKey(campaign: 42, seed: 1)
        var outputs = Set<[UInt64]>()
        for high in UInt64(0)..<64 {
            for low in UInt64(0)..<64 {
                let (a, b) = key.permute(high, low)
                outputs.insert([a, b])
            }
        }
        #expect(outputs.count == 64 * 64)
        #expect(TransactionIDKey.fingerprint(Array("a".utf8)) != TransactionIDKey.fingerprint(Array("b".utf8)))
    }
}
