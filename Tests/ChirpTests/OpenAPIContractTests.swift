import Chirp
import Foundation
import HTTP
import Testing

/// `openapi.yaml` and the router describe the same API: every route served is documented with
/// its method, and every documented operation is served. Schemathesis (`scripts/fuzz`) checks
/// the responses against the document; this keeps the two lists from drifting apart.
@Suite struct OpenAPIContractTests {
    static let documentURL = TestDatabase.repository.appendingPathComponent("openapi.yaml")

    let app: TestService
    init() throws {
        app = try TestService { $0.openAPIPath = Self.documentURL.path }
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() throws {
        let document = try OpenAPIPaths(yaml: String(contentsOf: Self.documentURL, encoding: .utf8))
        let served = Set(app.service.router.routes.map { Operation(method: $0.method.rawValue, path: OpenAPIPaths.template(of: $0.pattern)) })
        let documented = Set(document.operations)
        #expect(served.count == app.service.router.routes.count, "a route is registered twice")
        for missing in served.subtracting(documented).sorted() {
            Issue.record("served but not in openapi.yaml: \(missing)")
        }
        for extra in documented.subtracting(served).sorted() {
            Issue.record("in openapi.yaml but not served: \(extra)")
        }
        #expect(served.count >= 29)
    }

    @Test func theDocumentIsServedAsIs() async throws {
        let response = try await app.client.get("/openapi.yaml")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/yaml")
        #expect(response.header("X-Request-ID") != nil)
        #expect(response.body == (try Data(contentsOf: Self.documentURL)))
        #expect(response.text.hasPrefix("openapi: 3.1."))
    }

    @Test func everyReferenceResolves() throws {
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let document = try OpenAPIPaths(yaml: text)
        let references = Set(text.matches(of: /\$ref: '#\/components\/([A-Za-z]+)\/([A-Za-z0-9_.-]+)'/).map { "\($0.1)/\($0.2)" })
        #expect(!references.isEmpty)
        for reference in references.sorted() where !document.components.contains(reference) {
            Issue.record("unresolved $ref #/components/\(reference)")
        }
        let ids = document.operationIDs
        #expect(ids.count == document.operations.count, "every operation has one operationId")
        #expect(Set(ids).count == ids.count, "operationIds are unique")
    }
}

@Suite struct OpenAPIMissingDocumentTests {
    @Test func aServiceWithoutItsDocumentStartsAndAnswers404() async throws {
        let app = try TestService { $0.openAPIPath = "/nonexistent/openapi.yaml" }
        let missing = try await app.client.get("/openapi.yaml")
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/problem+json")
        #expect(missing.json["code"].string == "not_found")
        #expect(try await app.client.get("/healthz").status == 200)
    }
}

/// One documented or served operation: `GET /v1/posts/{id}`.
struct Operation: Hashable, Comparable, CustomStringConvertible {
    var method: String
    var path: String
    var description: String { "\(method) \(path)" }
    static func < (a: Operation, b: Operation) -> Bool { (a.path, a.method) < (b.path, b.method) }
}

/// Just enough of a YAML reader for `openapi.yaml`, which is written in block style with
/// two-space indentation: the `paths` section's keys and their methods, and the names under
/// each `components` section.
struct OpenAPIPaths {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    private(set) var operations: [Operation] = []
    private(set) var operationIDs: [String] = []
    /// `schemas/Post`, `responses/NotFound`, …
    private(set) var components: Set<String> = []

    init(yaml: String) throws {
        var section = ""
        var path: String?
        var componentKind: String?
        var inOperation = false
        for rawLine in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.allSatisfy(\.isWhitespace) || line.drop(while: { $0 == " " }).hasPrefix("#") { continue }
            let indent = line.prefix(while: { $0 == " " }).count
            let content = line.dropFirst(indent)
            if indent == 0 {
                section = String(content.prefix(while: { $0 != ":" }))
                path = nil
                componentKind = nil
                continue
            }
            switch (section, indent) {
            case ("paths", 2):
                guard content.hasPrefix("/"), content.hasSuffix(":") else {
                    throw Malformed(description: "not a path key: \(line)")
                }
                path = String(content.dropLast())
                inOperation = false
            case ("paths", 4):
                let key = String(content.prefix(while: { $0 != ":" }))
                inOperation = Self.methods.contains(key)
                if inOperation, let path {
                    operations.append(Operation(method: key.uppercased(), path: path))
                }
            case ("paths", 6) where inOperation && content.hasPrefix("operationId:"):
                operationIDs.append(content.dropFirst("operationId:".count).trimmingCharacters(in: .whitespaces))
            case ("components", 2):
                componentKind = String(content.prefix(while: { $0 != ":" }))
            case ("components", 4):
                if let componentKind, content.hasSuffix(":") {
                    components.insert("\(componentKind)/\(content.dropLast())")
                }
            default:
                continue
            }
        }
        guard !operations.isEmpty else { throw Malformed(description: "no operations under paths") }
    }

    /// `/v1/posts/:id/like` → `/v1/posts/{id}/like`.
    static func template(of pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
        }.joined(separator: "/")
    }
}
