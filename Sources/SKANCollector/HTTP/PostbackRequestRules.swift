import Foundation
import HTTPTypes

/// What a postback request's headers alone decide, shared by the router and ``PostbackResponder`` so that both
/// answer alike.
enum PostbackRequestRules {
    /// The refusal the headers already call for (415 for a declared non-JSON type, 413 for a declared length
    /// over `limit`), or `nil` when the body must be read.
    static func refusal(for headers: HTTPFields, limit: Int) -> PostbackReply? {
        // One pass over the few headers: the subscript joins repeated values through generic code, on every
        // request, for each of the two names (a per cent of the server's CPU under load).
        var contentType: String?
        var contentLength: String?
        for field in headers {
            if field.name == .contentType {
                contentType = contentType.map { $0 + ", " + field.value } ?? field.value
            } else if field.name == .contentLength {
                contentLength = contentLength.map { $0 + ", " + field.value } ?? field.value
            }
        }
        if let type = contentType, !isJSON(type) {
            return PostbackReply(.unsupportedMediaType, reason: "content-type \(type) is not JSON; send application/json")
        }
        // A declared length over the limit is refused before reading a byte of it.
        if let declared = contentLength.flatMap(Int.init), declared > limit { return tooLarge(limit: limit) }
        return nil
    }

    /// The reply to a request without `Host`, or `nil` when it has one. RFC 9112 §3.2: a server must answer 400
    /// to an HTTP/1.1 request that lacks it. swift-http-types keeps `Host` as the request's authority.
    static func missingHost(_ request: HTTPRequest) -> PostbackReply? {
        guard request.authority == nil else { return nil }
        return PostbackReply(.badRequest, field: "host", reason: "the request has no Host header; HTTP/1.1 requires one")
    }

    /// The 413 reply.
    static func tooLarge(limit: Int) -> PostbackReply {
        PostbackReply(.tooLarge, reason: "the body is over the limit of \(limit) bytes")
    }

    /// `application/json`, any `+json` type, with or without parameters such as `charset`.
    static func isJSON(_ contentType: String) -> Bool {
        // Nearly every client sends exactly this; the general check below is slow enough to show in profiles.
        if contentType == "application/json" { return true }
        let media = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        let type = media.trimmingCharacters(in: .whitespaces).lowercased()
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }
}
