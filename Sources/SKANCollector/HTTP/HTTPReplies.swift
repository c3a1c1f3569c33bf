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

    /// The reply to a postback, for the router.
    static func reply(_ reply: PostbackReply) -> Response {
        let (status, body) = parts(reply)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: body))
    }

    /// The status and JSON body of the reply to a postback, for the router and ``PostbackResponder`` alike. The two
    /// bodies nearly every request gets are encoded once, not per request.
    static func parts(_ reply: PostbackReply) -> (HTTPResponse.Status, ByteBuffer) {
        switch reply.outcome {
        case .accepted where reply.field == nil && reply.reason == nil: (.ok, accepted)
        case .duplicate where reply.field == nil && reply.reason == nil: (.ok, duplicate)
        default: (HTTPResponse.Status(code: reply.statusCode), ByteBuffer(string: reply.json))
        }
    }

    private static let accepted = ByteBuffer(string: PostbackReply(.accepted).json)
    private static let duplicate = ByteBuffer(string: PostbackReply(.duplicate).json)
}
