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
}
