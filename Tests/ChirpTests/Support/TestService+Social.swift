import Foundation
import Postgres

/// Helpers for the likes, comments, follows and search tests.
extension TestService {
    /// Creates a post as `user` and returns its id.
    func createPost(_ body: String, by user: TestUser) async throws -> String {
        let response = try await client.post("/v1/posts", json: ["body": body], token: user.accessToken)
        guard response.status == 201, let id = response.json["id"].string else {
            throw TestClient.Failure(description: "post failed: \(response.status) \(response.text)")
        }
        return id
    }

    /// Comments (or replies, with `parentId`) as `user` and returns the new comment's id.
    func createComment(on post: String, _ body: String, parentId: String? = nil, by user: TestUser) async throws -> String {
        var json: [String: Any] = ["body": body]
        if let parentId { json["parentId"] = parentId }
        let response = try await client.post("/v1/posts/\(post)/comments", json: json, token: user.accessToken)
        guard response.status == 201, let id = response.json["id"].string else {
            throw TestClient.Failure(description: "comment failed: \(response.status) \(response.text)")
        }
        return id
    }

    /// Signs up `count` users, one after another: the service bounds concurrent password
    /// hashes and refuses (503) sign-ups beyond them.
    func signUp(_ prefix: String, count: Int) async throws -> [TestUser] {
        var users: [TestUser] = []
        for _ in 0..<count { users.append(try await signUp(prefix)) }
        return users
    }

    /// A whole number read as superuser, past row-level security.
    func count(_ query: PostgresQuery) async throws -> Int {
        try await database.scalar(query, as: Int.self)
    }

    /// Every item of a cursor list, following `nextCursor`, with the pages' sizes.
    func walk(_ path: String, limit: Int, token: String? = nil) async throws -> (items: [JSON], pageSizes: [Int]) {
        var items: [JSON] = []
        var sizes: [Int] = []
        var cursor: String?
        repeat {
            var target = "\(path)?limit=\(limit)"
            if let cursor { target += "&cursor=\(cursor)" }
            let page = try await client.get(target, token: token)
            guard page.status == 200 else {
                throw TestClient.Failure(description: "\(target): \(page.status) \(page.text)")
            }
            items += page.json["items"].array
            sizes.append(page.json["items"].array.count)
            cursor = page.json["nextCursor"].string
            guard page.json["hasMore"].bool == (cursor != nil) else {
                throw TestClient.Failure(description: "hasMore disagrees with nextCursor: \(page.text)")
            }
            guard sizes.count <= 100 else { throw TestClient.Failure(description: "paging does not end") }
        } while cursor != nil
        return (items, sizes)
    }
}

extension JSON {
    var ids: [String] { array.compactMap { $0["id"].string } }
}

/// `2026-11-30T10:53:13Z`: seconds, UTC, no fraction.
func isISO8601Seconds(_ text: String?) -> Bool {
    guard let text else { return false }
    return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil
}
