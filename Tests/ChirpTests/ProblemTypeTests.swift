import Foundation
import HTTP
import TestSupport
import Testing

/// Every problem's `type` is `/problems/<code>`, which the service describes, and every code
/// the service can answer with is in `ProblemType.all` and in `openapi.yaml`.
@Suite struct ProblemTypeTests {
    /// Each `code: "…"` (and `code = "…"`) written in the service's sources.
    static func codesInSources() throws -> Set<String> {
        let sources = TestCluster.repository.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"\bcode(?:: String)? ?[:=] ?"([a-z_]+)""#)
        var codes: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { codes.insert(String(text[range])) }
            }
        }
        return codes
    }

    @Test func everyCodeTheServiceUsesIsATypeAndDocumented() throws {
        let known = Set(ProblemType.all.map(\.code))
        #expect(known.count == ProblemType.all.count, "a code is listed twice")
        let used = try Self.codesInSources()
        #expect(used.count > 15, "the scan found too few codes: \(used.sorted())")
        #expect(used.subtracting(known).isEmpty, "codes without a problem type: \(used.subtracting(known).sorted())")
        #expect(known.subtracting(used).isEmpty, "problem types nothing answers with: \(known.subtracting(used).sorted())")

        let schemas = try OpenAPISchemas(yaml: String(contentsOf: OpenAPIContractTests.documentURL, encoding: .utf8))
        let problem = schemas.resolve(.mapping([("$ref", .string("#/components/schemas/Problem"))]))
        let documented = Set((problem["properties"]?["code"]?["enum"]?.sequence ?? []).compactMap(\.string))
        #expect(documented == known)
    }

    @Test func aProblemsTypeLeadsToWhatItMeans() async throws {
        let app = try await TestService.started(over: .socket)
        let missing = try await app.client.get("/v1/posts/\(UUID().uuidString.lowercased())")
        #expect(missing.status == 404)
        let type = try #require(missing.json["type"].string)
        #expect(type == "/problems/not_found")
        let described = try await app.client.get(type)
        #expect(described.status == 200)
        #expect(described.json["code"].string == "not_found")
        #expect(described.json["status"].int == 404)
        #expect(described.json["type"].string == type)

        let unknown = try await app.client.get("/problems/no_such_problem")
        #expect(unknown.status == 404 && unknown.json["type"].string == "/problems/not_found")
    }
}
