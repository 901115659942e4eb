import Chirp
import Foundation
import HTTP
import TestSupport
import Testing

/// `openapi.yaml` and the router describe the same API: every route served is documented with
/// its method, and every documented operation is served. Schemathesis (`scripts/fuzz`) checks
/// the responses against the document; this keeps the two lists from drifting apart. Over
/// sockets: the document is fetched as the server itself serves it, request id and all.
@Suite struct OpenAPIContractTests {
    static let documentURL = TestCluster.repository.appendingPathComponent("openapi.yaml")

    let app: TestService
    init() async throws {
        app = try await TestService.started(over: .socket) { $0.openAPIPath = Self.documentURL.path }
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

/// Real answers of the running service, for every operation and most error statuses, checked
/// against the document's response schemas and required headers (the fuzzing stage does the
/// same with generated requests; this keeps a deterministic copy in `swift test`). Over sockets:
/// the headers the document requires of every response (`X-Request-ID`) and the statuses it
/// documents without a body are the server's to deliver.
@Suite struct OpenAPIResponseTests {
    let app: TestService
    let schemas: OpenAPISchemas

    init() async throws {
        app = try await TestService.started(over: .socket) { $0.openAPIPath = OpenAPIContractTests.documentURL.path }
        schemas = try OpenAPISchemas(yaml: String(contentsOf: OpenAPIContractTests.documentURL, encoding: .utf8))
    }

    /// Sends a request and checks its answer against the operation `template` documents.
    @discardableResult
    func check(
        _ method: String, _ template: String, _ path: String, _ status: Int,
        json: [String: Any]? = nil, raw: String? = nil, token: String? = nil,
        headers: [String: String] = [:], contentType: String = "application/json",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestClient.Response {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? raw.map { Data($0.utf8) }
        let response = try await app.client.request(method, path, body: body, token: token, headers: headers, contentType: contentType)
        let label = "\(method) \(path) → \(response.status)"
        #expect(response.status == status, "\(label): \(response.text)", sourceLocation: sourceLocation)
        guard let documented = schemas.response(method, template, status: response.status) else {
            Issue.record("\(label): status not documented for \(method) \(template)", sourceLocation: sourceLocation)
            return response
        }
        for (name, header) in (documented["headers"].map { $0.keys.map { ($0, schemas.resolve(documented["headers"]?[$0] ?? .null)) } } ?? [])
        where header["required"] == .bool(true) {
            #expect(response.header(name) != nil, "\(label): lacks required header \(name)", sourceLocation: sourceLocation)
        }
        let mediaType = response.header("Content-Type")?.split(separator: ";").first.map(String.init) ?? ""
        if let content = documented["content"] {
            guard let schema = content[mediaType]?["schema"] else {
                Issue.record("\(label): content type \(mediaType) not documented", sourceLocation: sourceLocation)
                return response
            }
            if mediaType.hasSuffix("json") {
                let value = try JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])
                for violation in schemas.violations(of: value, against: schema) {
                    Issue.record("\(label): \(violation)", sourceLocation: sourceLocation)
                }
            }
        } else {
            #expect(response.body.isEmpty, "\(label): documented without a body", sourceLocation: sourceLocation)
        }
        return response
    }

    /// The checker itself: a post that breaks each rule is refused for each.
    @Test func theCheckerRefusesWhatTheDocumentForbids() throws {
        let post: YAMLValue = .mapping([("$ref", .string("#/components/schemas/Post"))])
        let good: [String: Any] = [
            "id": "0b7e1f0a-3c1d-4e5f-8a9b-0c1d2e3f4a5b",
            "author": ["id": "0b7e1f0a-3c1d-4e5f-8a9b-0c1d2e3f4a5c", "username": "ada", "displayName": "Ada"],
            "body": "hello", "createdAt": "2026-11-30T10:53:13Z", "likeCount": 0, "commentCount": 2, "likedByMe": false,
            "editedAt": NSNull(),
        ]
        #expect(schemas.violations(of: good, against: post).isEmpty)
        let broken: [(String, (inout [String: Any]) -> Void)] = [
            ("undocumented property", { $0["authorId"] = "x" }),
            ("lacks required", { $0["likedByMe"] = nil }),
            ("not of type integer", { $0["likeCount"] = "1" }),
            ("not of type boolean", { $0["likedByMe"] = 1 }),
            ("below 0", { $0["commentCount"] = -1 }),
            ("does not match", { $0["createdAt"] = "2026-11-30T10:53:13.123Z" }),
            ("does not match", { $0["id"] = "0B7E1F0A-3C1D-4E5F-8A9B-0C1D2E3F4A5B" }),
            ("longer than 500", { $0["body"] = String(repeating: "é", count: 501) }),
            ("does not match", { $0["author"] = ["id": "0b7e1f0a-3c1d-4e5f-8a9b-0c1d2e3f4a5c", "username": "Ada", "displayName": "Ada"] }),
        ]
        for (expected, breakIt) in broken {
            var value = good
            breakIt(&value)
            let violations = schemas.violations(of: value, against: post)
            #expect(violations.contains { $0.contains(expected) }, "\(expected): \(violations)")
        }
        let problem: YAMLValue = .mapping([("$ref", .string("#/components/responses/NotFound"))])
        let notFoundSchema = try #require(schemas.resolve(problem)["content"]?["application/problem+json"]?["schema"])
        let wrongCode: [String: Any] = ["type": "/problems/gone", "title": "Not Found", "status": 404, "code": "gone", "detail": "", "requestId": "r"]
        #expect(!schemas.violations(of: wrongCode, against: notFoundSchema).isEmpty)
    }

    @Test func everyOperationAnswersAsDocumented() async throws {
        // Accounts and sessions.
        let name = "doc_\(UUID().uuidString.prefix(8).lowercased())"
        let session = try await check("POST", "/v1/auth/signup", "/v1/auth/signup", 201,
                                      json: ["username": name.uppercased(), "password": "correct horse battery", "displayName": "Doc"])
        let user = try #require(TestUser(session: session.json, password: "correct horse battery"))
        let (token, refresh) = (user.accessToken, user.refreshToken)
        try await check("POST", "/v1/auth/signup", "/v1/auth/signup", 409, json: ["username": name, "password": "correct horse battery"])
        try await check("POST", "/v1/auth/signup", "/v1/auth/signup", 422, json: ["username": "x", "password": "correct horse battery"])
        try await check("POST", "/v1/auth/signup", "/v1/auth/signup", 400, raw: "{")
        try await check("POST", "/v1/auth/signup", "/v1/auth/signup", 415, raw: "{}", contentType: "text/plain")
        let login = try await check("POST", "/v1/auth/login", "/v1/auth/login", 200, json: ["username": name, "password": "correct horse battery"])
        try await check("POST", "/v1/auth/login", "/v1/auth/login", 401, json: ["username": name, "password": "wrong horse battery"])
        let rotated = try await check("POST", "/v1/auth/refresh", "/v1/auth/refresh", 200, json: ["refreshToken": login.json["refreshToken"].string ?? ""])
        try await check("POST", "/v1/auth/refresh", "/v1/auth/refresh", 200, json: ["refreshToken": refresh])
        try await check("POST", "/v1/auth/refresh", "/v1/auth/refresh", 401, json: ["refreshToken": "nope"])
        // Ends the login's session, not the sign-up's that `token` belongs to.
        try await check("POST", "/v1/auth/logout", "/v1/auth/logout", 204, json: ["refreshToken": rotated.json["refreshToken"].string ?? ""], token: token)
        try await check("POST", "/v1/auth/logout", "/v1/auth/logout", 401, json: ["refreshToken": "x"])
        try await check("GET", "/v1/me", "/v1/me", 200, token: token)
        try await check("GET", "/v1/me", "/v1/me", 401, token: "not.a.token")
        try await check("PATCH", "/v1/me", "/v1/me", 200, json: ["displayName": "  Doc Writer  ", "bio": "Line one\nline two"], token: token)
        try await check("PATCH", "/v1/me", "/v1/me", 422, json: ["bio": String(repeating: "b", count: 301)], token: token)
        let other = try await app.signUp("doc_other")

        // Posts, timelines, explore.
        let post = try await check("POST", "/v1/posts", "/v1/posts", 201, json: ["body": "documented ✓"], token: token, headers: ["Idempotency-Key": "doc-1"])
        let replay = try await check("POST", "/v1/posts", "/v1/posts", 201, json: ["body": "documented ✓"], token: token, headers: ["Idempotency-Key": "doc-1"])
        #expect(replay.header("Idempotent-Replayed") == "true")
        try await check("POST", "/v1/posts", "/v1/posts", 422, json: ["body": "different"], token: token, headers: ["Idempotency-Key": "doc-1"])
        try await check("POST", "/v1/posts", "/v1/posts", 400, json: ["body": "x"], token: token, headers: ["Idempotency-Key": "has space"])
        try await check("POST", "/v1/posts", "/v1/posts", 422, json: ["body": "   "], token: token)
        try await check("POST", "/v1/posts", "/v1/posts", 401, json: ["body": "x"])
        let postID = try #require(post.json["id"].string)
        try await check("GET", "/v1/posts/{id}", "/v1/posts/\(postID)", 200)
        try await check("GET", "/v1/posts/{id}", "/v1/posts/not-a-uuid", 400)
        try await check("GET", "/v1/posts/{id}", "/v1/posts/\(UUID())", 404)
        for _ in 0..<3 { try await app.createPost("filler", by: user) }
        let first = try await check("GET", "/v1/posts", "/v1/posts?limit=2", 200)
        let etag = try #require(first.header("ETag"))
        try await check("GET", "/v1/posts", "/v1/posts?limit=2", 304, headers: ["If-None-Match": etag])
        let next = try #require(first.json["nextCursor"].string)
        try await check("GET", "/v1/posts", "/v1/posts?limit=2&cursor=\(next)", 200)
        let head = try #require(first.json["headCursor"].string)
        try await app.createPost("newer", by: user)
        try await check("GET", "/v1/posts", "/v1/posts?since=\(head)", 200)
        try await check("GET", "/v1/posts", "/v1/posts?cursor=garbled", 400)
        try await check("GET", "/v1/posts", "/v1/posts?limit=0", 400)
        try await check("GET", "/v1/feed", "/v1/feed", 200, token: token)
        try await check("GET", "/v1/feed", "/v1/feed", 401)
        try await check("GET", "/v1/explore", "/v1/explore?limit=2", 200)
        try await check("GET", "/v1/explore", "/v1/explore?cursor=garbled", 400)

        // Likes and comments.
        try await check("PUT", "/v1/posts/{id}/like", "/v1/posts/\(postID)/like", 200, token: other.accessToken)
        try await check("PUT", "/v1/posts/{id}/like", "/v1/posts/\(UUID())/like", 404, token: other.accessToken)
        try await check("GET", "/v1/posts/{id}/likes", "/v1/posts/\(postID)/likes", 200)
        try await check("DELETE", "/v1/posts/{id}/like", "/v1/posts/\(postID)/like", 200, token: other.accessToken)
        let comment = try await check("POST", "/v1/posts/{id}/comments", "/v1/posts/\(postID)/comments", 201, json: ["body": "first!"], token: other.accessToken)
        let commentID = try #require(comment.json["id"].string)
        try await check("POST", "/v1/posts/{id}/comments", "/v1/posts/\(postID)/comments", 201, json: ["body": "a reply", "parentId": commentID], token: token)
        try await check("POST", "/v1/posts/{id}/comments", "/v1/posts/\(postID)/comments", 422, json: ["body": "x", "parentId": UUID().uuidString], token: token)
        try await check("POST", "/v1/posts/{id}/comments", "/v1/posts/\(UUID())/comments", 404, json: ["body": "x"], token: token)
        try await check("GET", "/v1/posts/{id}/comments", "/v1/posts/\(postID)/comments", 200)
        try await check("GET", "/v1/comments/{id}/replies", "/v1/comments/\(commentID)/replies", 200)
        try await check("GET", "/v1/comments/{id}/replies", "/v1/comments/\(UUID())/replies", 404)

        // Users, follows, search.
        try await check("GET", "/v1/users/{username}", "/v1/users/\(name.uppercased())", 200)
        let profile = try await check("GET", "/v1/users/{username}", "/v1/users/\(name)?limit=1", 200)
        try await check("GET", "/v1/users/{username}", "/v1/users/\(name)?limit=1", 304, headers: ["If-None-Match": profile.header("ETag") ?? ""])
        try await check("GET", "/v1/users/{username}", "/v1/users/no", 404)
        try await check("GET", "/v1/users/{username}/posts", "/v1/users/\(name)/posts", 200)
        try await check("PUT", "/v1/users/{username}/follow", "/v1/users/\(other.username)/follow", 200, token: token)
        try await check("PUT", "/v1/users/{username}/follow", "/v1/users/\(name)/follow", 422, token: token)
        try await check("DELETE", "/v1/users/{username}/follow", "/v1/users/\(other.username)/follow", 200, token: token)
        try await check("GET", "/v1/search/posts", "/v1/search/posts?q=documented&sort=top", 200)
        try await check("GET", "/v1/search/posts", "/v1/search/posts", 400)
        try await check("GET", "/v1/search/users", "/v1/search/users?q=doc&per=5", 200)

        // Notifications: the comment and the reply above told the post's and the comment's authors.
        let notified = try await check("GET", "/v1/notifications", "/v1/notifications?limit=1", 200, token: other.accessToken)
        #expect(notified.json["items"][0]["kind"].string == "reply")
        try await check("GET", "/v1/notifications", "/v1/notifications", 200, token: token)
        try await check("GET", "/v1/notifications", "/v1/notifications?cursor=garbled", 400, token: token)
        try await check("GET", "/v1/notifications", "/v1/notifications", 401)
        try await check("GET", "/v1/notifications/unread-count", "/v1/notifications/unread-count", 200, token: token)
        try await check("GET", "/v1/notifications/unread-count", "/v1/notifications/unread-count", 401)
        let notificationHead = notified.json["headCursor"].string ?? ""
        try await check("POST", "/v1/notifications/read", "/v1/notifications/read", 204, json: ["upTo": notificationHead], token: other.accessToken)
        try await check("POST", "/v1/notifications/read", "/v1/notifications/read", 204, json: [:], token: token)
        try await check("POST", "/v1/notifications/read", "/v1/notifications/read", 400, json: ["upTo": "garbled"], token: token)
        try await check("POST", "/v1/notifications/read", "/v1/notifications/read", 422, json: ["all": true], token: token)
        try await check("POST", "/v1/notifications/read", "/v1/notifications/read", 415, raw: "{}", token: token, contentType: "text/plain")
        try await check("POST", "/v1/notifications/read", "/v1/notifications/read", 401, json: [:])

        // Blocks and mutes: a block refuses the blocked user's actions on the blocker's content.
        let blocked = try await app.signUp("doc_blocked")
        try await check("PUT", "/v1/users/{username}/block", "/v1/users/\(blocked.username)/block", 200, token: token)
        try await check("PUT", "/v1/users/{username}/block", "/v1/users/\(name)/block", 422, token: token)
        try await check("PUT", "/v1/users/{username}/block", "/v1/users/nobody_here_at_all/block", 404, token: token)
        try await check("PUT", "/v1/users/{username}/block", "/v1/users/\(name)/block", 401)
        try await check("PUT", "/v1/users/{username}/follow", "/v1/users/\(name)/follow", 403, token: blocked.accessToken)
        try await check("PUT", "/v1/posts/{id}/like", "/v1/posts/\(postID)/like", 403, token: blocked.accessToken)
        try await check("POST", "/v1/posts/{id}/comments", "/v1/posts/\(postID)/comments", 403, json: ["body": "x"], token: blocked.accessToken)
        try await check("GET", "/v1/me/blocks", "/v1/me/blocks", 200, token: token)
        try await check("GET", "/v1/me/blocks", "/v1/me/blocks?cursor=garbled", 400, token: token)
        try await check("GET", "/v1/me/blocks", "/v1/me/blocks", 401)
        try await check("DELETE", "/v1/users/{username}/block", "/v1/users/\(blocked.username)/block", 200, token: token)
        try await check("DELETE", "/v1/users/{username}/block", "/v1/users/nobody_here_at_all/block", 404, token: token)
        try await check("PUT", "/v1/users/{username}/mute", "/v1/users/\(blocked.username)/mute", 200, token: token)
        try await check("PUT", "/v1/users/{username}/mute", "/v1/users/\(name)/mute", 422, token: token)
        try await check("GET", "/v1/me/mutes", "/v1/me/mutes", 200, token: token)
        try await check("DELETE", "/v1/users/{username}/mute", "/v1/users/\(blocked.username)/mute", 200, token: token)

        // Deletes, operations, the document.
        try await check("DELETE", "/v1/comments/{id}", "/v1/comments/\(commentID)", 403, token: app.signUp("doc_third").accessToken)
        try await check("DELETE", "/v1/comments/{id}", "/v1/comments/\(commentID)", 204, token: token)
        try await check("DELETE", "/v1/posts/{id}", "/v1/posts/\(postID)", 403, token: other.accessToken)
        try await check("DELETE", "/v1/posts/{id}", "/v1/posts/\(postID)", 204, token: token)
        try await check("GET", "/healthz", "/healthz", 200)
        try await check("GET", "/readyz", "/readyz", 200)
        try await check("GET", "/metrics", "/metrics", 200)
        try await check("GET", "/openapi.yaml", "/openapi.yaml", 200)

        // Ending sessions, last: they end `token`'s.
        let change = ["currentPassword": "correct horse battery", "newPassword": "a new horse battery"]
        try await check("PUT", "/v1/me/password", "/v1/me/password", 403, json: ["currentPassword": "wrong", "newPassword": "a new horse battery"], token: token)
        try await check("PUT", "/v1/me/password", "/v1/me/password", 422, json: ["currentPassword": "correct horse battery", "newPassword": "short"], token: token)
        try await check("PUT", "/v1/me/password", "/v1/me/password", 401, json: change)
        try await check("PUT", "/v1/me/password", "/v1/me/password", 204, json: change, token: token)
        try await check("POST", "/v1/auth/logout-all", "/v1/auth/logout-all", 204, token: token)
        try await check("POST", "/v1/auth/logout-all", "/v1/auth/logout-all", 401, token: token)
        try await check("GET", "/v1/me", "/v1/me", 401, token: token)
    }
}

/// A service whose document is missing still starts. Through the router: what is tested is the
/// service's start-up and its answers, not HTTP.
@Suite struct OpenAPIMissingDocumentTests {
    @Test func aServiceWithoutItsDocumentStartsAndAnswers404() async throws {
        let app = try await TestService.started(over: .router) { $0.openAPIPath = "/nonexistent/openapi.yaml" }
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
