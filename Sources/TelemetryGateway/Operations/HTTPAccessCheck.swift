import Hummingbird
import HummingbirdAuth

/// The middleware in front of one route group: a request without one of the group's tokens
/// gets 401 with an empty body and the challenges a client can answer (`Bearer` for
/// scrapers and scripts, `Basic` so a browser asks for the token as a password), and reaches
/// no handler. An open group passes everything.
struct HTTPAccessCheck<Context: RequestContext>: RouterMiddleware {
    let group: HTTPRouteGroup
    let access: HTTPAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard access.tokens.isProtected(group) else { return try await next(request, context) }
        let presented = request.headers.bearer?.token ?? request.headers.basic?.password
        guard access.admits(presented, to: group) else {
            return Response(
                status: .unauthorized,
                headers: [
                    .wwwAuthenticate: "Bearer realm=\"wearable-gateway\", Basic realm=\"wearable-gateway\", charset=\"UTF-8\"",
                    .cacheControl: "no-store",
                ])
        }
        return try await next(request, context)
    }
}
