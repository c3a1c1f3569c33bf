import Foundation
import SKANCore
import SKANStore
import Synchronization

/// SKAdNetwork for Web Ads (spec §7.2) on the signer: the ad server registers an ad it is about to serve and gets
/// its nonce in the encodings the ad link and Safari use; after the tap Safari asks for the signed payload by that
/// nonce. Registration is private (the signing port); Safari's request faces devices (the public port).
struct WebAdExchange: Sendable {
    let store: any WebAdStore
    let keys: SignerKeys
    /// How long a registered ad is served to Safari.
    let lifetime: TimeInterval
    /// Registered ads kept at most: past it a registration is refused until some expire.
    let maximum: Int
    /// The ads registered and not yet swept, so that a registration costs no count of the table.
    let tally = WebAdTally()
    let now: @Sendable () -> Date
    let makeNonce: @Sendable () -> UUID

    /// A reply: status and JSON body.
    struct Reply: Sendable {
        let status: Int
        let body: String
    }

    /// A refusal in the shape of `/v1/impressions`' own: a status word, the field at fault when one is, the reason.
    static func refusal(_ status: Int, field: String?, _ reason: String) -> Reply {
        var writer = JSONWriter()
        writer.string("status", status == 400 ? "bad-request" : status == 404 ? "not-found" : "unavailable")
        if let field { writer.string("field", field) }
        writer.string("reason", reason)
        return Reply(status: status, body: writer.json)
    }

    /// `POST /v1/web-ads`: one object named as `skan sign`'s long options (`ad-network-id`, `source-identifier`,
    /// `itunes-item-id`, `source-domain`, optional `version` 4.0 and `timestamp`). The signer makes the nonce.
    func register(_ body: [UInt8]) async -> Reply {
        let members: [JSONMember]
        switch JSONObjectReader.members(of: body) {
        case .success(let read): members = read
        case .failure(let error): return Self.refusal(400, field: nil, "the body is not a JSON object: \(error)")
        }
        for field in ["nonce", "framework", "format", "source-app-id", "fidelity-type"] where members.contains(where: { $0.key == field }) {
            return Self.refusal(400, field: field, "\(field) is not taken here: a web ad is an SKAdNetwork impression whose nonce is made "
                                + "by the signer, whose format is the AdImpressionResponse and whose fidelity type is 1")
        }
        guard members.contains(where: { $0.key == "source-domain" }) else {
            return Self.refusal(400, field: "source-domain", "source-domain (the eTLD+1 of the page that shows the ad) is required")
        }
        let nonce = makeNonce()
        let signed: SignedImpression
        do throws(SKANError) {
            var request = members.filter { $0.key != "version" }
            request.append(JSONMember(key: "version", value: members.first { $0.key == "version" }?.value ?? .string("4.0")))
            let read = try ImpressionBody.request(request).attributionImpression(now: now, makeNonce: { nonce })
            try read.validate()
            guard let impression = read.skadnetwork, impression.kind == .web else {
                return Self.refusal(400, field: "version", "a web ad is a SKAdNetwork 4.0 impression with a source-domain")
            }
            guard let key = keys.key(for: impression.adNetworkID) else {
                return Self.refusal(400, field: "ad-network-id", "ad-network-id \(JSONWriter.quoted(Excerpt.of(impression.adNetworkID, maximumBytes: 80))) has no key in this signer")
            }
            signed = try ImpressionSigner(key: key).sign(impression)
        } catch {
            return Self.refusal(400, field: nil, error.reason)
        }
        let expires = now().addingTimeInterval(lifetime)
        let response = signed.json(.webResponse)
        guard tally.reserve(maximum: maximum) else {
            return Self.refusal(503, field: nil, "the signer holds \(maximum) registered web ads, its limit "
                                + "(--max-web-ads); retry once some expire")
        }
        do {
            try await store.register(RegisteredWebAd(nonce: nonce, sourceDomain: signed.impression.sourceDomain ?? "",
                                                     response: response, expiresAt: expires))
        } catch {
            tally.release()
            return Self.refusal(503, field: nil, "the store could not keep the ad: \(error.code)")
        }
        var writer = JSONWriter()
        writer.string("nonce", signed.impression.nonceText)
        writer.string("attributionSourceNonce", Self.linkNonce(nonce))
        writer.string("href", "https://apps.apple.com/app/id\(signed.impression.itunesItemID)")
        writer.integer("expires", Int(expires.timeIntervalSince1970 * 1000))
        writer.raw("response", response)
        return Reply(status: 200, body: writer.json)
    }

    /// `POST /.well-known/skadnetwork/get-signed-payload`: Safari's `AdImpressionRequest`, answered with the
    /// stored `AdImpressionResponse`; an unknown, expired or other site's nonce is a 404, which says nothing about
    /// which of the three it was.
    func signedPayload(_ body: [UInt8]) async -> Reply {
        let members: [JSONMember]
        switch JSONObjectReader.members(of: body) {
        case .success(let read): members = read
        case .failure(let error): return Self.refusal(400, field: nil, "the body is not a JSON object: \(error)")
        }
        func text(_ name: String) -> String? {
            guard case .string(let value)? = members.first(where: { $0.key == name })?.value else { return nil }
            return value
        }
        guard let encoded = text("source_nonce") else {
            return Self.refusal(400, field: "source_nonce", "source_nonce must be a string: the link's attributionSourceNonce")
        }
        guard let bytes = Base64URL.decode(Substring(encoded)), bytes.count == 16 else {
            return Self.refusal(400, field: "source_nonce", "source_nonce must be 16 bytes in unpadded base64url (22 characters), got "
                                + JSONWriter.quoted(Excerpt.of(encoded, maximumBytes: 40)))
        }
        guard let domain = text("source_domain"), !domain.isEmpty else {
            return Self.refusal(400, field: "source_domain", "source_domain must be a non-empty string")
        }
        let nonce = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        do {
            guard let ad = try await store.ad(nonce: nonce, at: now()), ad.sourceDomain == domain else {
                return Self.refusal(404, field: nil, "no web ad is registered under this nonce for this source_domain, or it expired")
            }
            return Reply(status: 200, body: ad.response)
        } catch {
            return Self.refusal(503, field: nil, "the store could not be read: \(error.code)")
        }
    }

    /// Removes the ads expired by now and takes the count of those left from the store (where other signers sharing
    /// it register too); returns how many were removed.
    func sweep() async throws(StoreError) -> Int {
        let removed = try await store.removeExpired(at: now())
        tally.reset(to: try await store.count())
        return removed
    }

    /// The link's `attributionSourceNonce`: the UUID's 16 raw bytes in unpadded base64url, case preserved.
    static func linkNonce(_ nonce: UUID) -> String {
        withUnsafeBytes(of: nonce.uuid) { Base64URL.encode($0) }
    }
}

/// Registered web ads counted in memory between sweeps: checked and taken under one lock, so that concurrent
/// registrations never pass the limit together.
final class WebAdTally: Sendable {
    private let count = Mutex(0)

    /// Takes a place for one more ad, unless `maximum` are held.
    func reserve(maximum: Int) -> Bool {
        count.withLock { count in
            guard count < maximum else { return false }
            count += 1
            return true
        }
    }

    /// Gives back a place whose registration failed.
    func release() { count.withLock { $0 = max(0, $0 - 1) } }

    /// The store's own count, after a sweep.
    func reset(to value: Int) { count.withLock { $0 = value } }

    /// Ads held now.
    var value: Int { count.withLock { $0 } }
}
