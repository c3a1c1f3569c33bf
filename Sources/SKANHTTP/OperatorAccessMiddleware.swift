import Hummingbird

/// ``OperatorAccess`` on a private listener's router: lets a request through only when the rule admits it, else
/// 401. With `login`, `GET /login?token=TOKEN` answers a redirect to `/` that sets the session cookie (the
/// dashboard's browsers). The token is never logged.
///
/// Added first, so that it guards every route and the 404s alike; an ``EventLoopFastPath`` given the same
/// access steps aside for a request the rule refuses, so that this answers it.
public struct OperatorAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: OperatorAccess
    let login: Bool

    /// A guard for `access`; `login` serves `GET /login?token=`.
    public init(_ access: OperatorAccess, login: Bool = false) {
        self.access = access
        self.login = login
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard access.requiresToken else { return try await next(request, context) }
        if login, request.uri.path == "/login", let offered = request.uri.queryParameters["token"] {
            guard let cookie = access.login(offered: String(offered),
                                            secure: OperatorAccess.cameOverTLS(request.headers)) else {
                return Self.unauthorized()
            }
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: cookie, .cacheControl: "no-store"])
        }
        guard access.admits(request.headers) else { return Self.unauthorized() }
        return try await next(request, context)
    }

    /// The 401 every private listener answers.
    public static func unauthorized() -> Response {
        Response(status: .unauthorized,
                 headers: [.wwwAuthenticate: OperatorAccess.challenge, .contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: OperatorAccess.unauthorizedBody)))
    }
}
