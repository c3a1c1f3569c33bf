import Hummingbird

/// Lets a request through only with the dashboard's token: `Authorization: Bearer TOKEN` (scripts, `curl`), or the
/// cookie `GET /login?token=TOKEN` sets (a browser, which cannot add the header to a link it follows). Compared in
/// constant time; the token is never logged.
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]
    static var cookie: String { "skan_dashboard_token" }

    /// A guard for `token`, which must not be empty.
    public init(token: String) {
        precondition(!token.isEmpty, "an empty token would let everyone in")
        self.token = Array(token.utf8)
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/login", let offered = request.uri.queryParameters["token"] {
            guard matches(Array(offered.utf8)) else { return Self.unauthorized() }
            let value = String(decoding: token, as: UTF8.self)
            return Response(status: .seeOther, headers: [
                .location: "/",
                .setCookie: "\(Self.cookie)=\(value); Path=/; HttpOnly; SameSite=Strict",
            ])
        }
        if let header = request.headers[.authorization], header.hasPrefix("Bearer "),
           matches(Array(header.utf8.dropFirst("Bearer ".utf8.count))) {
            return try await next(request, context)
        }
        if let cookies = request.headers[.cookie] {
            for pair in cookies.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix("\(Self.cookie)="), matches(Array(trimmed.utf8.dropFirst(Self.cookie.utf8.count + 1))) {
                    return try await next(request, context)
                }
            }
        }
        return Self.unauthorized()
    }

    /// Equal in time independent of where the first difference is.
    func matches(_ offered: [UInt8]) -> Bool {
        guard offered.count == token.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(offered, token) { difference |= a ^ b }
        return difference == 0
    }

    static func unauthorized() -> Response {
        Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"skan dashboard\"",
                                                  .contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: .init(string: "dashboard: a token is required (Authorization: Bearer, or /login?token=)\n")))
    }
}
