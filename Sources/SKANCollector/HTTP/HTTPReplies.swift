import Hummingbird

/// Builds responses with a body and its content type.
enum HTTPReplies {
    static func json(_ status: Int, _ body: String) -> Response {
        text(status, body, contentType: "application/json")
    }

    static func text(_ status: Int, _ body: String, contentType: String) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: contentType],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The reply to a postback. The two bodies nearly every request gets are encoded once, not per request.
    static func reply(_ reply: PostbackReply) -> Response {
        switch reply.outcome {
        case .accepted where reply.field == nil && reply.reason == nil: accepted
        case .duplicate where reply.field == nil && reply.reason == nil: duplicate
        default: json(reply.statusCode, reply.json)
        }
    }

    private static let accepted = json(200, PostbackReply(.accepted).json)
    private static let duplicate = json(200, PostbackReply(.duplicate).json)
}
