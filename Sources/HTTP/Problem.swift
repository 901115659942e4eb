import Observability

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
        var response = HTTPResponse(status: problem.status, headers: headers, body: body(problem, requestID: requestID))
        response.cause = problem.cause
        return response
    }

    static func body(_ problem: HTTPError, requestID: String) -> [UInt8] {
        var out = Array(#"{"type":"#.utf8)
        JSONText.appendString(ProblemType.uri(for: problem.code), to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        JSONText.appendString(HTTPStatus.reasonPhrase(problem.status), to: &out)
        out.append(contentsOf: #","status":"#.utf8)
        out.append(contentsOf: String(problem.status).utf8)
        out.append(contentsOf: #","code":"#.utf8)
        JSONText.appendString(problem.code, to: &out)
        out.append(contentsOf: #","detail":"#.utf8)
        JSONText.appendString(problem.detail, to: &out)
        out.append(contentsOf: #","requestId":"#.utf8)
        JSONText.appendString(requestID, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
