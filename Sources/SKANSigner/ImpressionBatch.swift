import Foundation
import SKANCore

/// One `POST /v1/impressions` body: a request object or an array of up to ``maximumCount``, each member named as
/// `skan sign`'s long options. Every request is checked before any is signed, so a bad one signs none.
struct ImpressionBatch {
    /// The most requests one body may hold.
    static let maximumCount = 1000

    /// Why a body was refused: the request's index (nil for the body itself) and a reason naming the field.
    struct Refusal: Error {
        let index: Int?
        let reason: String

        var json: String {
            var writer = JSONWriter()
            writer.string("status", "bad-request")
            if let index { writer.integer("index", index) }
            writer.string("reason", reason)
            return writer.json
        }
    }

    /// One checked request, ready to sign.
    enum Item {
        case skadnetwork(Impression, ImpressionFormat?)
        case adAttributionKit(AAKImpression)

        var network: String {
            switch self {
            case .skadnetwork(let impression, _): impression.adNetworkID
            case .adAttributionKit(let impression): impression.adNetworkIdentifier
            }
        }
    }

    let items: [Item]
    /// Whether the body was one object (the reply is one object) rather than an array.
    let isSingle: Bool

    /// Reads and checks a body; `now` and `makeNonce` give the defaults of `timestamp` and `nonce`.
    init(_ body: [UInt8], now: () -> Date, makeNonce: () -> UUID) throws(Refusal) {
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        var objects: [[JSONMember]] = []
        if first == UInt8(ascii: "[") {
            switch JSONObjectReader.elements(ofArray: body, maximumCount: Self.maximumCount) {
            case .failure(let error): throw Refusal(index: nil, reason: "the body is not a JSON array of up to \(Self.maximumCount) requests: \(error)")
            case .success(let elements):
                for (index, element) in elements.enumerated() {
                    guard case .object(let text) = element,
                          case .success(let members) = JSONObjectReader.members(of: Array(text.utf8)) else {
                        throw Refusal(index: index, reason: "each request must be a JSON object, got \(element.described)")
                    }
                    objects.append(members)
                }
            }
            isSingle = false
        } else {
            switch JSONObjectReader.members(of: body) {
            case .failure(let error): throw Refusal(index: nil, reason: "the body is not a JSON object or array: \(error)")
            case .success(let members): objects = [members]
            }
            isSingle = true
        }
        var items: [Item] = []
        items.reserveCapacity(objects.count)
        for (index, members) in objects.enumerated() {
            let at = isSingle ? nil : index
            do throws(SKANError) {
                items.append(try Self.item(members, now: now, makeNonce: makeNonce))
            } catch {
                throw Refusal(index: at, reason: error.reason)
            }
        }
        self.items = items
    }

    /// The request's members as the text values the core's impression rules read (numbers as written, booleans as
    /// `true`/`false`), then the impression they describe.
    static func item(_ members: [JSONMember], now: () -> Date, makeNonce: () -> UUID) throws(SKANError) -> Item {
        var values: [String: String] = [:]
        for member in members {
            switch member.value {
            case .string(let text): values[member.key] = text
            case .number(let text): values[member.key] = text
            case .bool(let flag): values[member.key] = flag ? "true" : "false"
            case .null: continue
            default: throw SKANError(.invalidImpression, "\(member.key) must be a string, a number or a boolean, got \(member.value.described)")
            }
        }
        let format = values.removeValue(forKey: "format")
        if format == "aak" {
            let known = Set(AAKImpression.fieldNames)
            if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
                throw SKANError(.invalidImpression, "\(unknown) is not a field of an AdAttributionKit impression; fields are \(AAKImpression.fieldNames.joined(separator: ", "))")
            }
            let impression = try AAKImpression(values: values, now: now, makeNonce: makeNonce)
            try impression.validate()
            return .adAttributionKit(impression)
        }
        let known = Set(ImpressionRequest.fieldNames)
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw SKANError(.invalidImpression, "\(unknown) is not a field of an impression; fields are \(ImpressionRequest.fieldNames.joined(separator: ", ")), format")
        }
        var impressionFormat: ImpressionFormat?
        if let format {
            guard let known = ImpressionFormat(rawValue: format) else {
                throw SKANError(.invalidImpression, "format must be storekit, skadimpression, web or aak, got \"\(Excerpt.of(format, maximumBytes: 40))\"")
            }
            impressionFormat = known
        }
        // SKAdNetwork signs nonces lowercase; a fresh one is made lowercase here as skan sign does.
        let impression = try ImpressionRequest(values: values).impression(now: now, makeNonce: makeNonce)
        try impression.validate()
        return .skadnetwork(impression, impressionFormat)
    }
}
