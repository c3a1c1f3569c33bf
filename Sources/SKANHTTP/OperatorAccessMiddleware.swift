import Foundation
import Hummingbird

/// ``OperatorAccess`` on a private listener's router: lets a request through only when the rule admits it, else
/// 401. With `login` (the dashboard's browsers), `GET /login` shows a form and `POST /login` with the form's `token`
/// answers a redirect to `/` that sets the session cookie; a browser refused a page gets that form with its 401. The
/// token travels only in a request body: in a URL (`/login?token=`) browsers keep it in their history and proxies
/// in their logs, so that is refused. The token is never logged.
///
/// Added first, so that it guards every route and the 404s alike; an ``EventLoopFastPath`` given the same
/// access steps aside for a request the rule refuses, so that this answers it.
public struct OperatorAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: OperatorAccess
    let login: Bool

    /// The most a login form's body may hold: a token of a few hundred bytes, percent-encoded.
    static var maximumLoginBody: Int { 4096 }

    /// A guard for `access`; `login` serves the login form at `/login`.
    public init(_ access: OperatorAccess, login: Bool = false) {
        self.access = access
        self.login = login
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard access.requiresToken else { return try await next(request, context) }
        if login, request.uri.path == "/login" { return try await signIn(request) }
        guard access.admits(request.headers) else {
            let browser = login && request.method == .get && (request.headers[.accept] ?? "").contains("text/html")
            return browser ? Self.form(status: .unauthorized) : Self.unauthorized()
        }
        return try await next(request, context)
    }

    /// `/login`: the form on GET, the session cookie for the right token on POST.
    private func signIn(_ request: Request) async throws -> Response {
        switch request.method {
        case .get where request.uri.queryParameters["token"] != nil:
            return Self.plain(.badRequest, "the token goes in the body of POST /login (the form at /login), never in "
                              + "a URL: browsers keep URLs in their history and proxies in their logs")
        case .get:
            return Self.form(status: .ok)
        case .post:
            let body = try await request.body.collect(upTo: Self.maximumLoginBody)
            guard let offered = Self.formValue("token", in: String(buffer: body)),
                  let cookie = access.login(offered: offered, secure: OperatorAccess.cameOverTLS(request.headers)) else {
                return Self.form(status: .unauthorized)
            }
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: cookie, .cacheControl: "no-store"])
        default:
            return Self.plain(.methodNotAllowed, "/login takes GET (the form) or POST (the token)")
        }
    }

    /// The value of `name` in an `application/x-www-form-urlencoded` body.
    static func formValue(_ name: String, in body: String) -> String? {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == name else { continue }
            return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }

    /// The login form: one password field, posted to `/login`; no script, nothing from the request echoed.
    static func form(status: HTTPResponse.Status) -> Response {
        let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>skan: sign in</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"></head>
            <body><form method="post" action="/login"><p>This listener needs the token of its token file.</p>
            <label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
            <button type="submit">Sign in</button></form></body></html>
            """
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        if status == .unauthorized { headers[.wwwAuthenticate] = OperatorAccess.challenge }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// The 401 every private listener answers.
    public static func unauthorized() -> Response {
        Response(status: .unauthorized,
                 headers: [.wwwAuthenticate: OperatorAccess.challenge, .contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: OperatorAccess.unauthorizedBody)))
    }
}
