import Foundation
import Postgres

/// The requests tests make to set themselves up, each checking its answer, so that a setup
/// that goes wrong fails where it went wrong; and helpers for the likes, comments, follows and
/// search tests.
extension TestService {
    /// Signs up one user per prefix, one after another, and returns them in the same order:
    /// `let (alice, bob) = try await app.signUp("alice", "bob")`.
    func signUp<each Prefix: StringProtocol>(
        _ first: String, _ second: String, _ more: repeat each Prefix
    ) async throws -> (TestUser, TestUser, repeat OneFor<each Prefix, TestUser>) {
        (try await signUp(first), try await signUp(second), repeat try await signUp(String(each more)))
    }

    /// Alice, Bob and Carol signed up, and a post of Alice's for them to act on.
    func threeUsersAndAPost(_ body: String) async throws -> (alice: TestUser, bob: TestUser, carol: TestUser, post: String) {
        let (alice, bob, carol) = try await signUp("alice", "bob", "carol")
        return (alice, bob, carol, try await createPost(body, by: alice))
    }

    /// Creates a post as `user` and returns its id.
    @discardableResult
    func createPost(_ body: String, by user: TestUser) async throws -> String {
        let response = try await client.post("/v1/posts", json: ["body": body], token: user.accessToken)
            .requiring(201, "post by \(user.username)")
        return try id(in: response)
    }

    /// Comments (or replies, with `parentId`) as `user` and returns the new comment's id.
    @discardableResult
    func createComment(on post: String, _ body: String, parentId: String? = nil, by user: TestUser) async throws -> String {
        var json: [String: Any] = ["body": body]
        if let parentId { json["parentId"] = parentId }
        let response = try await client.post("/v1/posts/\(post)/comments", json: json, token: user.accessToken)
            .requiring(201, "comment by \(user.username)")
        return try id(in: response)
    }

    /// Likes `post` as `user`.
    func like(_ post: String, by user: TestUser) async throws {
        try await client.put("/v1/posts/\(post)/like", token: user.accessToken).requiring(200, "like by \(user.username)")
    }

    /// Takes back `user`'s like of `post`.
    func unlike(_ post: String, by user: TestUser) async throws {
        try await client.delete("/v1/posts/\(post)/like", token: user.accessToken).requiring(200, "unlike by \(user.username)")
    }

    /// Makes `follower` follow `followee`.
    func follow(_ followee: TestUser, by follower: TestUser) async throws {
        try await client.put("/v1/users/\(followee.username)/follow", token: follower.accessToken)
            .requiring(200, "follow by \(follower.username)")
    }

    /// Makes `follower` stop following `followee`.
    func unfollow(_ followee: TestUser, by follower: TestUser) async throws {
        try await client.delete("/v1/users/\(followee.username)/follow", token: follower.accessToken)
            .requiring(200, "unfollow by \(follower.username)")
    }

    /// `DELETE /v1/me` as `user`, with `password`.
    func deleteAccount(of user: TestUser, password: String) async throws -> TestClient.Response {
        try await client.request(
            "DELETE", "/v1/me", body: try JSONSerialization.data(withJSONObject: ["password": password]), token: user.accessToken)
    }

    /// Changes `user`'s profile fields (`displayName`, `bio`).
    func updateProfile(_ fields: [String: Any], of user: TestUser) async throws {
        try await client.patch("/v1/me", json: fields, token: user.accessToken).requiring(200, "profile update by \(user.username)")
    }

    /// Writes `count` posts by `author` as superuser, past the API: bodies `prefix` followed by
    /// 1 to `count`, created now.
    func insertPosts(_ count: Int, by author: TestUser, prefix: String) async throws {
        try await database.execute(
            "insert into posts (author_id, body) select \(author.id)::uuid, \(prefix)::text || i from generate_series(1, \(count)) i")
    }

    private func id(in response: TestClient.Response) throws -> String {
        guard let id = response.json["id"].string else {
            throw TestClient.Failure(description: "no id in \(response.text)")
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

    /// Every item of a cursor list, following `nextCursor`, with the pages' sizes. Each page must
    /// answer 200 with at most `limit` items, and say `hasMore` exactly when it gives a
    /// `nextCursor` (null on the last page). `afterEachPage` runs with each page's items before
    /// the next page is asked for.
    func walk(
        _ path: String, limit: Int, token: String? = nil, afterEachPage: ([JSON]) async throws -> Void = { _ in }
    ) async throws -> (items: [JSON], pageSizes: [Int]) {
        var items: [JSON] = []
        var sizes: [Int] = []
        var cursor: String?
        repeat {
            var target = "\(path)?limit=\(limit)"
            if let cursor { target += "&cursor=\(cursor)" }
            let page = try await client.get(target, token: token).requiring(200, target)
            let pageItems = page.json["items"].array
            guard pageItems.count <= limit else {
                throw TestClient.Failure(description: "\(target): \(pageItems.count) items")
            }
            items += pageItems
            sizes.append(pageItems.count)
            cursor = page.json["nextCursor"].string
            guard page.json["hasMore"].bool == (cursor != nil), cursor != nil || page.json["nextCursor"].isNull else {
                throw TestClient.Failure(description: "hasMore disagrees with nextCursor: \(page.text)")
            }
            try await afterEachPage(pageItems)
            guard sizes.count <= 100 else { throw TestClient.Failure(description: "paging does not end") }
        } while cursor != nil
        return (items, sizes)
    }
}

extension JSON {
    var ids: [String] { array.ids }
}

extension [JSON] {
    var ids: [String] { compactMap { $0["id"].string } }
}

/// `T` once for each element of a pack: `(repeat OneFor<each Prefix, TestUser>)` is a tuple of
/// as many users as there are prefixes.
typealias OneFor<Element, T> = T

/// `2026-11-30T10:53:13Z`: seconds, UTC, no fraction.
func isISO8601Seconds(_ text: String?) -> Bool {
    guard let text else { return false }
    return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil
}
