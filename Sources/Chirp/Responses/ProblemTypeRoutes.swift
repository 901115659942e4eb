import HTTP

/// `GET /problems/{code}`: what a problem's `type` names (`ProblemType`), so that the URI in
/// every problem document leads somewhere.
struct ProblemTypeRoutes: Sendable {
    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let code = request.pathParameters["code"], let type = ProblemType.named(code) else {
            throw HTTPError.notFound(detail: "no such problem type")
        }
        return .json(200, Document(type: type))
    }

    struct Document: JSONWritable {
        var type: ProblemType

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.key("type"); json.string(ProblemType.uri(for: type.code))
            json.key("code"); json.string(type.code)
            json.key("status"); json.int(type.status)
            json.key("summary"); json.string(type.summary)
            json.endObject()
        }
    }
}
