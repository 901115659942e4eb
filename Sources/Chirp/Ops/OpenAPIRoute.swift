import Foundation
import HTTP
import Observability

/// `GET /openapi.yaml`: the API's contract as OpenAPI 3.1, read once at start-up from the file
/// the configuration names. An instance started without that file still serves everything
/// else, and answers 404 here.
struct OpenAPIRoute {
    static let contentType = "application/yaml"
    /// The document's bytes, or nil when the file could not be read.
    let document: [UInt8]?

    init(path: String, logger: Logger) {
        document = FileManager.default.contents(atPath: path).map { Array($0) }
        if document == nil {
            logger.warning("OpenAPI document not found; GET /openapi.yaml answers 404", ["path": .string(path)])
        }
    }

    func document(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let document else {
            throw HTTPError.notFound(detail: "this instance was started without its OpenAPI document")
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": Self.contentType], body: document)
    }
}
