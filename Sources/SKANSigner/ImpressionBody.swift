import Foundation
import SKANCore

/// One `POST /v1/impressions` body: a request object or an array of up to ``maximumCount``, each member named as
/// `skan sign`'s long options plus `framework` and `format`, read into the core's requests; the core's
/// ``ImpressionBatch`` signs them (every one checked before any is signed, so a bad one signs none).
struct ImpressionBody {
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

    let requests: [ImpressionRequest]
    /// Whether the body was one object (the reply is one object) rather than an array.
    let isSingle: Bool

    /// Reads a body into requests, refusing one that is not JSON or whose members are not text values.
    init(_ body: [UInt8]) throws(Refusal) {
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
        var requests: [ImpressionRequest] = []
        requests.reserveCapacity(objects.count)
        for (index, members) in objects.enumerated() {
            do throws(SKANError) {
                requests.append(try Self.request(members))
            } catch {
                throw Refusal(index: isSingle ? nil : index, reason: error.reason)
            }
        }
        self.requests = requests
    }

    /// The request's members as the text values the core's impression rules read (numbers as written, booleans as
    /// `true`/`false`).
    static func request(_ members: [JSONMember]) throws(SKANError) -> ImpressionRequest {
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
        return try ImpressionRequest(named: values)
    }

    /// The body's impressions signed with `keys`, in order, or the refusal of the whole body naming the request
    /// and the field; `now` and `makeNonce` give the defaults of `timestamp` and `nonce`.
    func sign(keys: SignerKeys, now: () -> Date, makeNonce: () -> UUID) throws(Refusal) -> [SignedAttributionImpression] {
        switch ImpressionBatch.sign(requests, keys: keys.key(for:), now: now, makeNonce: makeNonce) {
        case .success(let signed): return signed
        case .failure(let refusal): throw Refusal(index: isSingle ? nil : refusal.index, reason: refusal.reason)
        }
    }
}
