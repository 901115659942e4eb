import Foundation
import Testing

/// Posts and comments are edited by their author only: the body changes, `editedAt` says when,
/// search follows the new words, and nobody else (the post's author included, for a comment)
/// can change them. The database decides: the update policy hides other people's rows.
@Suite struct EditTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func anAuthorEditsAPostEveryoneSeesTheNewBodyAndWhen() async throws {
        let (alice, bob) = try await app.signUp("edita", "editb")
        let post = try await app.createPost("first draft", by: alice)
        let fresh = try await app.client.get("/v1/posts/\(post)")
        #expect(fresh.json["editedAt"].isNull)

        let edited = try await app.client.patch("/v1/posts/\(post)", json: ["body": "  second draft, zeugmatically  "], token: alice.accessToken)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(edited.json["body"].string == "second draft, zeugmatically")
        let editedAt = try #require(edited.json["editedAt"].string)
        #expect(isISO8601Seconds(editedAt))
        #expect(edited.json["id"].string == post && edited.json["author"]["id"].string == alice.id)

        let read = try await app.client.get("/v1/posts/\(post)", token: bob.accessToken)
        #expect(read.json["body"].string == "second draft, zeugmatically" && read.json["editedAt"].string == editedAt)
        let found = try await app.client.get("/v1/search/posts?q=zeugmatically")
        #expect(found.json["items"].array.map { $0["id"].string } == [post])
        #expect(try await app.client.get("/v1/search/posts?q=draft").json["items"].array.count == 1)

        // The same body again changes nothing, its time included.
        let again = try await app.client.patch("/v1/posts/\(post)", json: ["body": "second draft, zeugmatically"], token: alice.accessToken)
        #expect(again.status == 200 && again.json["editedAt"].string == editedAt)
    }

    @Test func nobodyButTheAuthorEditsAndBadBodiesAreRefused() async throws {
        let (alice, bob) = try await app.signUp("editc", "editd")
        let post = try await app.createPost("mine", by: alice)
        let comment = try await app.createComment(on: post, "bob's comment", by: bob)

        let notYours = try await app.client.patch("/v1/posts/\(post)", json: ["body": "hijacked"], token: bob.accessToken)
        #expect(notYours.status == 403 && notYours.json["code"].string == "forbidden")
        // The post's author may delete a comment under it, not rewrite it.
        let notYourComment = try await app.client.patch("/v1/comments/\(comment)", json: ["body": "hijacked"], token: alice.accessToken)
        #expect(notYourComment.status == 403)
        #expect(try await app.client.get("/v1/posts/\(post)").json["body"].string == "mine")
        #expect(try await app.client.get("/v1/comments/\(comment)").json["body"].string == "bob's comment")

        #expect(try await app.client.patch("/v1/posts/\(post)", json: ["body": "x"]).status == 401)
        let missing = try await app.client.patch("/v1/posts/\(UUID().uuidString.lowercased())", json: ["body": "x"], token: alice.accessToken)
        #expect(missing.status == 404)
        for body: Any in ["", "   ", String(repeating: "a", count: 501), 42] {
            let refused = try await app.client.patch("/v1/posts/\(post)", json: ["body": body], token: alice.accessToken)
            #expect(refused.status == 422, "\(body)")
        }
        let extra = try await app.client.patch("/v1/posts/\(post)", json: ["body": "ok", "likeCount": 1000], token: alice.accessToken)
        #expect(extra.status == 422)
        #expect(try await app.client.get("/v1/posts/\(post)").json["likeCount"].int == 0)
    }

    @Test func anAuthorEditsACommentOrAReply() async throws {
        let (alice, bob) = try await app.signUp("edite", "editf")
        let post = try await app.createPost("thread", by: alice)
        let comment = try await app.createComment(on: post, "typo'd", by: bob)
        let edited = try await app.client.patch("/v1/comments/\(comment)", json: ["body": "typo fixed"], token: bob.accessToken)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(edited.json["body"].string == "typo fixed")
        #expect(edited.json["editedAt"].string != nil)
        #expect(edited.json["postId"].string == post)
        let thread = try await app.client.get("/v1/posts/\(post)/comments")
        #expect(thread.json["items"][0]["body"].string == "typo fixed")
        #expect(thread.json["items"][0]["editedAt"].string == edited.json["editedAt"].string)
        let tooLong = try await app.client.patch("/v1/comments/\(comment)", json: ["body": String(repeating: "a", count: 2001)], token: bob.accessToken)
        #expect(tooLong.status == 422)
    }
}
