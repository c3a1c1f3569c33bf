import Crypto
import Foundation
import SKANCore
import SKANStore

/// Decides, for each accepted postback, which destinations get it and renders what they get: the collector's
/// pipeline asks it on the request's thread, before the write, so the writer's transaction only inserts.
public struct RelayRouter: OutboxRouting {
    /// The configuration it routes by.
    public let configuration: RelayConfiguration

    /// Routes by `configuration`.
    public init(configuration: RelayConfiguration) {
        self.configuration = configuration
    }

    public func items(for postback: AcceptedPostback, arrival: Arrival) -> [OutboxItem] {
        var items: [OutboxItem] = []
        for destination in configuration.destinations where destination.filter.takes(postback) {
            items.append(item(for: postback, arrival: arrival, to: destination))
        }
        return items
    }

    /// What `destination` gets for `postback`.
    public func item(for postback: AcceptedPostback, arrival: Arrival, to destination: RelayDestination) -> OutboxItem {
        Self.item(key: postback.dedupKey, rawBody: postback.rawBody, receivedAt: Timestamp.iso8601(postback.receivedAt),
                  arrival: arrival, to: destination)
    }

    /// What `destination` gets for a stored postback (``RelayReplay``): the key it got, or would have got, when the
    /// postback arrived, so that a partner drops what it already has; the address and user agent, never stored,
    /// are `null`.
    public static func item(for stored: StoredPostback, to destination: RelayDestination) -> OutboxItem {
        item(key: stored.dedupKey, rawBody: stored.rawBody, receivedAt: stored.receivedAt, arrival: Arrival(), to: destination)
    }

    private static func item(key: DedupKey, rawBody: [UInt8], receivedAt: String, arrival: Arrival,
                             to destination: RelayDestination) -> OutboxItem {
        let key = idempotencyKey(destination: destination.name, key)
        switch destination.body {
        case .received:
            return OutboxItem(destination: destination.name, idempotencyKey: key, body: rawBody)
        case .json(let extras):
            var members = JSONWriter()
            for extra in extras {
                switch extra {
                case .receivedAt: members.string(extra.rawValue, receivedAt)
                case .ipAddress: members.string(extra.rawValue, arrival.clientAddress)
                case .userAgent: members.string(extra.rawValue, arrival.userAgent)
                }
            }
            return OutboxItem(destination: destination.name, idempotencyKey: key, body: adding(members.json, to: rawBody))
        }
    }

    /// The key is the same on every attempt, and on a replay, of one postback to one destination: a hash of the
    /// destination and the postback's dedup key, so that the partner can drop repeats.
    public static func idempotencyKey(destination: String, _ key: DedupKey) -> String {
        // Once per queued entry on the writer's path: one buffer and one hash, no string per byte.
        var input: [UInt8] = []
        input.reserveCapacity(destination.utf8.count + key.network.utf8.count + key.dedupID.utf8.count + 32)
        for part in [destination, key.framework.rawValue, key.network, key.dedupID, String(key.window)] {
            input.append(contentsOf: part.utf8)
            input.append(0)
        }
        return RelayHex.string(SHA256.hash(data: input).prefix(16))
    }

    /// `members` (a JSON object's text) added at the end of the object `body`; `body` as it is when it is not an
    /// object (an accepted postback always is) or there is nothing to add.
    static func adding(_ members: String, to body: [UInt8]) -> [UInt8] {
        let inner = members.utf8.dropFirst().dropLast()
        guard !inner.isEmpty, let close = body.lastIndex(where: { !Self.isSpace($0) }), body[close] == UInt8(ascii: "}"),
              let open = body.firstIndex(where: { !Self.isSpace($0) }), body[open] == UInt8(ascii: "{") else { return body }
        let before = body[open + 1 ..< close].lastIndex(where: { !Self.isSpace($0) })
        var out = Array(body[..<close])
        if before != nil { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: inner)
        out.append(contentsOf: body[close...])
        return out
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}

extension RelayFilter {
    /// Whether a destination with this filter takes `postback`.
    public func takes(_ postback: AcceptedPostback) -> Bool {
        takes(framework: postback.attribution.framework, fields: postback.attribution.fields, endpoint: postback.endpoint)
    }

    /// Whether a destination with this filter takes a stored postback.
    public func takes(_ stored: StoredPostback) -> Bool {
        takes(framework: stored.framework, fields: stored.fields, endpoint: stored.endpoint)
    }

    func takes(framework: Framework, fields: AttributionFields, endpoint: String) -> Bool {
        if !frameworks.isEmpty && !frameworks.contains(framework) { return false }
        if !adNetworkIDs.isEmpty && !adNetworkIDs.contains(fields.network) { return false }
        if !appIDs.isEmpty && !appIDs.contains(fields.appID) { return false }
        if !paths.isEmpty && !paths.contains(endpoint) { return false }
        if !copies.isEmpty && !copies.contains(RelayCopy(endpoint: endpoint, didWin: fields.didWin)) { return false }
        return true
    }
}

extension RelayCopy {
    /// Apple sends developer copies to the advertiser's `/.well-known/…/report-attribution/` paths; a postback
    /// without `did-win` (SKAdNetwork before 3.0) went to the winner only.
    public init(of postback: AcceptedPostback) {
        self.init(endpoint: postback.endpoint, didWin: postback.attribution.fields.didWin)
    }

    init(endpoint: String, didWin: Bool?) {
        if endpoint.hasPrefix("/.well-known/") {
            self = .developer
        } else {
            self = didWin == false ? .nonWinning : .winning
        }
    }
}
