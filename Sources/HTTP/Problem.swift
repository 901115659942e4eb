/// Renders errors as RFC 9457 problem details (`application/problem+json`).
public enum Problem {
    public static let contentType = "application/problem+json"

    /// The problem response for `error`. Anything other than an `HTTPError` becomes a 500 whose
    /// body says nothing about the cause; the caller logs the cause with the request id.
    public static func response(for error: any Error, requestID: String) -> HTTPResponse {
        let problem = (error as? HTTPError) ?? .internal()
        var headers = problem.headers
        headers.set("Content-Type", contentType)
        headers.set(RequestID.headerName, requestID)
        return HTTPResponse(status: problem.status, headers: headers, body: Array(body(problem, requestID: requestID).utf8))
    }

    static func body(_ problem: HTTPError, requestID: String) -> String {
        var out = #"{"type":"about:blank","title":"#
        JSONText.appendString(HTTPStatus.reasonPhrase(problem.status), to: &out)
        out.append(#","status":"#)
        out.append(String(problem.status))
        out.append(#","code":"#)
        JSONText.appendString(problem.code, to: &out)
        out.append(#","detail":"#)
        JSONText.appendString(problem.detail, to: &out)
        out.append(#","requestId":"#)
        JSONText.appendString(requestID, to: &out)
        out.append("}")
        return out
    }
}
