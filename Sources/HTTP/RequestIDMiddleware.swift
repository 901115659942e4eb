/// Puts the request's id on its response as `X-Request-ID`. The id itself is chosen by the server
/// when it reads the request (see `RequestID.resolve`), so problem bodies can carry it too.
public struct RequestIDMiddleware: HTTPMiddleware {
    public init() {}

    public func didHandle(_ request: HTTPRequest, response: inout HTTPResponse) {
        response.headers.set(RequestID.headerName, request.requestID)
    }
}
