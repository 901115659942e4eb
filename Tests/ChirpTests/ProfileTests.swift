import Foundation
import Postgres
import TestSupport
import Testing

/// Profiles: counts, the viewer's follow, the first page, ETags, and the two reads sent at once.
/// Through the router: what is tested is the route and its queries, not HTTP.
@Suite struct ProfileTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func aProfileCarriesCountsTheViewersFollowAndTheFirstPage() async throws {
        let (star, fan) = try await app.signUp("star", "fan")
        for index in 1...3 { try await app.createPost("post \(index)", by: star) }
        try await app.database.execute(
            "insert into follows (follower_id, followee_id) values (\(fan.id)::uuid, \(star.id)::uuid)")
        let seenByFan = try await app.client.get("/v1/users/\(star.username)?limit=2", token: fan.accessToken)
        #expect(seenByFan.status == 200)
        #expect(seenByFan.json["profile"]["postCount"].int == 3)
        #expect(seenByFan.json["profile"]["followerCount"].int == 1)
        #expect(seenByFan.json["profile"]["followedByMe"].bool == true)
        #expect(seenByFan.json["posts"]["items"].array.count == 2)
        #expect(seenByFan.json["posts"]["hasMore"].bool == true)
        let rest = try #require(seenByFan.json["posts"]["nextCursor"].string)
        let next = try await app.client.get("/v1/users/\(star.username)/posts?cursor=\(rest)")
        #expect(next.json["items"].array.map { $0["body"].string } == ["post 1"])

        let anonymous = try await app.client.get("/v1/users/\(star.username.uppercased())")
        #expect(anonymous.json["profile"]["followedByMe"].bool == false)
        #expect(try await app.client.get("/v1/users/no_such_user_here").status == 404)
        #expect(try await app.client.get("/v1/users/x").status == 404)
    }

    @Test func anUnchangedProfileAnswers304() async throws {
        let user = try await app.signUp("stable")
        let first = try await app.client.get("/v1/users/\(user.username)").requiring(200, "the profile")
        let tag = try #require(first.header("ETag"))
        #expect(try await app.client.get("/v1/users/\(user.username)", headers: ["If-None-Match": tag]).status == 304)
        try await app.updateProfile(["bio": "changed"], of: user)
        #expect(try await app.client.get("/v1/users/\(user.username)", headers: ["If-None-Match": tag]).status == 200)
    }

    /// With `users` locked, both of the profile's reads must be waiting on the lock at the
    /// same moment: proof that they were sent concurrently, not one after the other.
    @Test(.timeLimit(.minutes(1)))
    func theTwoReadsRunConcurrently() async throws {
        let user = try await app.signUp("concurrent")
        let client = app.client
        let database = app.database
        let waiting = try await database.adminPool.withSession { blocker in
            try await blocker.unsafeExecuteScript("begin; lock table users in access exclusive mode;")
            let response = Task { try await client.get("/v1/users/\(user.username)") }
            var waiting = 0
            for _ in 0..<100 {
                waiting = try await database.scalar("""
                    select count(*) from pg_stat_activity
                    where application_name = 'chirp-service-tests' and datname = current_database() and wait_event_type = 'Lock'
                    """, as: Int.self)
                if waiting >= 2 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await blocker.unsafeExecuteScript("commit")
            #expect(try await response.value.status == 200)
            return waiting
        }
        #expect(waiting == 2)
    }
}
