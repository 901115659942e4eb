import Foundation
import Testing

/// Follows: idempotent, counted exactly on both sides, also under concurrent churn, and refused
/// for oneself, unknown users and anonymous callers. Through the router: HTTP is not the point.
@Suite struct FollowTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    /// Followers and following: newest follow first, paged by cursor to the end without a
    /// repeat, each with the viewer's `followedByMe`; an unknown user is 404, a cursor from
    /// another list 400.
    @Test func followListsPageNewestFirstWithTheViewersFollows() async throws {
        let (alice, bob, carol, dave) = try await app.signUp("fla", "flb", "flc", "fld")
        for follower in [bob, carol, dave] { try await app.follow(alice, by: follower) }
        try await app.follow(carol, by: bob)

        let first = try await app.client.get("/v1/users/\(alice.username)/followers?limit=2", token: bob.accessToken)
        #expect(first.status == 200)
        #expect(first.json["items"].array.map { $0["username"].string } == [dave.username, carol.username])
        #expect(first.json["items"][1]["followedByMe"].bool == true)
        #expect(first.json["items"][0]["followedByMe"].bool == false)
        #expect(first.json["items"][0].keys == ["id", "username", "displayName", "bio", "followerCount", "followingCount", "postCount", "followedByMe"])
        #expect(first.json["hasMore"].bool == true)
        let cursor = try #require(first.json["nextCursor"].string)
        let second = try await app.client.get("/v1/users/\(alice.username)/followers?limit=2&cursor=\(cursor)", token: bob.accessToken)
        #expect(second.json["items"].array.map { $0["username"].string } == [bob.username])
        #expect(second.json["hasMore"].bool == false)

        let following = try await app.client.get("/v1/users/\(bob.username)/following")
        #expect(following.json["items"].array.map { $0["username"].string } == [carol.username, alice.username])
        #expect(following.json["items"][0]["followedByMe"].bool == false)  // anonymous

        #expect(try await app.client.get("/v1/users/nobody_like_this/followers").status == 404)
        let foreign = try await app.client.get("/v1/users/\(bob.username)/following?cursor=\(cursor)")
        #expect(foreign.status == 400 && foreign.json["code"].string == "invalid_cursor")
        #expect(try await app.client.get("/v1/users/\(alice.username)/following").json["items"].array.isEmpty)
    }

    @Test func followingIsIdempotentAndCountsBothSidesExactly() async throws {
        let (alice, bob, carol) = try await app.signUp("alice", "bob", "carol")
        let path = "/v1/users/\(bob.username)/follow"

        let follow = try await app.client.put(path, token: alice.accessToken)
        #expect(follow.status == 200)
        #expect(follow.json.keys == ["username", "following", "followerCount"])
        #expect(follow.json["username"].string == bob.username)
        #expect(follow.json["following"].bool == true)
        #expect(follow.json["followerCount"].int == 1)
        let again = try await app.client.put(path, token: alice.accessToken)
        #expect(again.status == 200 && again.json["followerCount"].int == 1)
        // Usernames are case-insensitive.
        let shouted = try await app.client.put("/v1/users/\(bob.username.uppercased())/follow", token: carol.accessToken)
        #expect(shouted.status == 200)
        #expect(shouted.json["username"].string == bob.username)
        #expect(shouted.json["followerCount"].int == 2)

        let profile = try await app.client.get("/v1/users/\(bob.username)", token: alice.accessToken)
        #expect(profile.json["profile"]["followerCount"].int == 2)
        #expect(profile.json["profile"]["followedByMe"].bool == true)
        let anonymous = try await app.client.get("/v1/users/\(bob.username)")
        #expect(anonymous.json["profile"]["followedByMe"].bool == false)
        let me = try await app.client.get("/v1/me", token: alice.accessToken)
        #expect(me.json["followingCount"].int == 1)

        let unfollow = try await app.client.delete(path, token: alice.accessToken)
        #expect(unfollow.status == 200)
        #expect(unfollow.json["following"].bool == false)
        #expect(unfollow.json["followerCount"].int == 1)
        let unfollowAgain = try await app.client.delete(path, token: alice.accessToken)
        #expect(unfollowAgain.status == 200 && unfollowAgain.json["followerCount"].int == 1)

        #expect(try await app.count("select follower_count from users where id = \(bob.id)::uuid") == 1)
        #expect(try await app.count("select following_count from users where id = \(alice.id)::uuid") == 0)
        #expect(try await app.count("select following_count from users where id = \(carol.id)::uuid") == 1)
        #expect(try await app.count("select count(*) from follows") == 1)
    }

    /// A viewer who follows hundreds sees exactly their own follows, user by user, on every
    /// page of a user search; an anonymous viewer follows nobody.
    @Test func followedByMeIsExactForAViewerWhoFollowsHundreds() async throws {
        let fan = try await app.signUp("fan")
        // Past the API: 400 users, of whom the fan follows all but every fourth (300).
        try await app.database.execute("insert into users (username) select 'followed_' || i from generate_series(1, 400) i")
        try await app.database.execute("""
            insert into follows (follower_id, followee_id)
            select \(fan.id)::uuid, id from users where username like 'followed%' and substring(username from 10)::int % 4 <> 0
            """)
        let followedByFan = Set((1...400).filter { $0 % 4 != 0 }.map { "followed_\($0)" })

        var items: [JSON] = []
        for page in 1...8 {
            let path = "/v1/search/users?q=followed&per=50&page=\(page)"
            items += try await app.client.get(path, token: fan.accessToken).requiring(200, path).json["items"].array
        }
        #expect(items.count == 400)
        #expect(items.allSatisfy { $0["followedByMe"].bool != nil })
        #expect(Set(items.filter { $0["followedByMe"].bool == true }.compactMap { $0["username"].string }) == followedByFan)
        let anonymous = try await app.client.get("/v1/search/users?q=followed&per=50")
        #expect(anonymous.json["items"].array.count == 50)
        #expect(anonymous.json["items"].array.allSatisfy { $0["followedByMe"].bool == false })
    }

    @Test func selfUnknownAndAnonymousFollowsAreRefused() async throws {
        let alice = try await app.signUp("alice")
        let me = try await app.client.put("/v1/users/\(alice.username)/follow", token: alice.accessToken)
        #expect(me.status == 422)
        #expect(me.json["code"].string == "validation_failed")
        for name in ["nobody_\(UUID().uuidString.prefix(8).lowercased())", "no", "not%20valid!"] {
            for method in ["PUT", "DELETE"] {
                let response = try await app.client.request(method, "/v1/users/\(name)/follow", token: alice.accessToken)
                #expect(response.status == 404, "\(method) \(name)")
                #expect(response.json["code"].string == "not_found", "\(method) \(name)")
            }
        }
        let anonymous = try await app.client.put("/v1/users/\(alice.username)/follow")
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let anonymousUnfollow = try await app.client.delete("/v1/users/\(alice.username)/follow")
        #expect(anonymousUnfollow.status == 401)
        let badToken = try await app.client.put("/v1/users/\(alice.username)/follow", token: "not.a.token")
        #expect(badToken.status == 401)
        #expect(try await app.count("select count(*) from follows") == 0)
        #expect(try await app.count("select follower_count + following_count from users where id = \(alice.id)::uuid") == 0)
    }

    @Test func concurrentFollowsAndUnfollowsKeepCountersExact() async throws {
        let users = try await app.signUp("crowd", count: 8)
        // Everyone follows and unfollows everyone else at random, mutual pairs included, at once.
        let requests = (0..<200).compactMap { _ -> (TestUser, TestUser, Bool)? in
            let follower = users[Int.random(in: 0..<users.count)]
            let followee = users[Int.random(in: 0..<users.count)]
            return follower.id == followee.id ? nil : (follower, followee, Bool.random())
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (follower, followee, follow) in requests {
                group.addTask {
                    // A burst of 200 may find the pool busy past its lease timeout on a loaded
                    // machine: that is a 503 to retry, as a client told Retry-After would.
                    var status = 503
                    for attempt in 0..<5 where status == 503 {
                        if attempt > 0 { try await Task.sleep(for: .milliseconds(200)) }
                        status = try await app.client.request(
                            follow ? "PUT" : "DELETE", "/v1/users/\(followee.username)/follow", token: follower.accessToken
                        ).status
                    }
                    return status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        for user in users {
            let followers = try await app.count("select count(*) from follows where followee_id = \(user.id)::uuid")
            let following = try await app.count("select count(*) from follows where follower_id = \(user.id)::uuid")
            #expect(try await app.count("select follower_count from users where id = \(user.id)::uuid") == followers)
            #expect(try await app.count("select following_count from users where id = \(user.id)::uuid") == following)
        }
    }
}
