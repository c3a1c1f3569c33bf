import Foundation
import SKANCore
import Testing

/// The rules that turn named values into an impression, shared by `skan sign` and a signing service.
@Suite("Impression requests")
struct ImpressionRequestTests {
    static let base = ["version": "4.0", "ad-network-id": "example.skadnetwork", "source-identifier": "1234",
                       "itunes-item-id": "525463029", "source-app-id": "1234567891"]

    @Test("defaults come from the injected clock and nonce; the kind follows fidelity and source-domain")
    func defaults() throws {
        let nonce = UUID(uuidString: "68483ef6-0678-4d39-9b6a-2ac3d3a1e3b4")!
        let now = Date(timeIntervalSince1970: 1_780_000_000.123)
        let impression = try ImpressionRequest(values: Self.base).impression(now: { now }, makeNonce: { nonce })
        #expect(impression.timestamp == 1_780_000_000_123)
        #expect(impression.nonce == nonce)
        #expect(impression.kind == .storeKitRendered)
        var viewThrough = Self.base
        viewThrough["fidelity-type"] = "0"
        #expect(try ImpressionRequest(values: viewThrough).impression().kind == .viewThrough)
        var web = Self.base
        web["source-app-id"] = nil
        web["source-domain"] = "example.com"
        #expect(try ImpressionRequest(values: web).impression().kind == .web)
    }

    @Test("a bad value is refused with the field (after the origin), the value and what was expected", arguments: [
        ("version", "9.9", "--version must be one of 1.0, 2.0, 2.1, 2.2, 3.0, 4.0, got \"9.9\""),
        ("fidelity-type", "2", "--fidelity-type must be 0 (view-through) or 1 (StoreKit-rendered), got 2"),
        ("itunes-item-id", "x1", "--itunes-item-id must be an integer, got \"x1\""),
        ("nonce", "not-a-uuid", "--nonce must be a UUID, got \"not-a-uuid\""),
        ("timestamp", "soon", "--timestamp must be an integer, got \"soon\""),
    ])
    func refused(field: String, value: String, message: String) {
        var values = Self.base
        values[field] = value
        #expect(throws: SKANError(.invalidImpression, message)) {
            _ = try ImpressionRequest(values: values).impression(origin: "--")
        }
    }

    @Test("required fields are named when missing, and a web ad cannot be view-through")
    func required() {
        for field in ["version", "ad-network-id", "itunes-item-id"] {
            var values = Self.base
            values[field] = nil
            #expect(throws: SKANError(.invalidImpression, "\(field) is required")) {
                _ = try ImpressionRequest(values: values).impression()
            }
        }
        var web = Self.base
        web["source-domain"] = "example.com"
        web["fidelity-type"] = "0"
        #expect(throws: SKANError(.invalidImpression, "fidelity-type of a web ad is 1, got 0")) {
            _ = try ImpressionRequest(values: web).impression()
        }
    }
}
