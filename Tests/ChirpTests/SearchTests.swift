import Foundation
import TestSupport
import Testing

/// Full-text search of posts and prefix-then-similarity search of users: order, paging
/// metadata, bounds and hostile terms. Through the router: what is tested is the routes and
/// their queries, not HTTP.
@Suite struct SearchTests {
    let app: TestService
    init() async throws { app = try await .started(over: .router) }

    @Test func postsAreFoundByWordNewestFirst() async throws {
        let alice = try await app.signUp("alice")
        let swiftOnly = try await app.createPost("Swift concurrency is great", by: alice)
        try await app.createPost("postgres row level security", by: alice)
        let both = try await app.createPost("swift and Postgres, together", by: alice)
        try await app.createPost("cats", by: alice)

        let swift = try await app.client.get("/v1/search/posts?q=swift")
        #expect(swift.status == 200)
        #expect(swift.json.keys == ["items", "metadata"])
        #expect(swift.json["items"].ids == [both, swiftOnly])
        #expect(swift.json["metadata"]["total"].int == 2)
        #expect(swift.json["metadata"]["page"].int == 1)
        #expect(swift.json["metadata"]["per"].int == 20)
        #expect(swift.json["items"][0]["author"]["username"].string == alice.username)

        let and = try await app.client.get("/v1/search/posts?q=swift%20postgres")
        #expect(and.json["items"].ids == [both])
        let phrase = try await app.client.get("/v1/search/posts?q=%22row%20level%22")
        #expect(phrase.json["metadata"]["total"].int == 1)
        let not = try await app.client.get("/v1/search/posts?q=swift%20-postgres")
        #expect(not.json["items"].ids == [swiftOnly])
        let nothing = try await app.client.get("/v1/search/posts?q=dogs")
        #expect(nothing.status == 200 && nothing.json["items"].array.isEmpty)
        #expect(nothing.json["metadata"]["total"].int == 0)
        // Operators only: no lexemes, no matches, no error.
        let punctuation = try await app.client.get("/v1/search/posts?q=%21%21%20%26%20%7C")
        #expect(punctuation.status == 200 && punctuation.json["metadata"]["total"].int == 0)
        // Bytes that are not UTF-8 arrive as replacement characters: no match, no error.
        let garbled = try await app.client.get("/v1/search/posts?q=%FF%FE")
        #expect(garbled.status == 200 && garbled.json["metadata"]["total"].int == 0)
    }

    @Test func sortTopOrdersByLikesAndLikedByMeIsTheViewers() async throws {
        let (alice, bob, carol) = try await app.signUp("alice", "bob", "carol")
        let none = try await app.createPost("kiwi zero", by: alice)
        let two = try await app.createPost("kiwi two", by: alice)
        let one = try await app.createPost("kiwi one", by: alice)
        for user in [bob, carol] { try await app.like(two, by: user) }
        try await app.like(one, by: bob)

        let top = try await app.client.get("/v1/search/posts?q=kiwi&sort=top", token: bob.accessToken)
        #expect(top.json["items"].ids == [two, one, none])
        #expect(top.json["items"].array.map { $0["likeCount"].int } == [2, 1, 0])
        #expect(top.json["items"].array.map { $0["likedByMe"].bool } == [true, true, false])
        let recent = try await app.client.get("/v1/search/posts?q=kiwi&sort=recent")
        #expect(recent.json["items"].ids == [one, two, none])
        #expect(recent.json["items"].array.allSatisfy { $0["likedByMe"].bool == false })
        let byDefault = try await app.client.get("/v1/search/posts?q=kiwi")
        #expect(byDefault.json["items"].ids == [one, two, none])
        let bad = try await app.client.get("/v1/search/posts?q=kiwi&sort=oldest")
        #expect(bad.status == 400 && bad.json["code"].string == "invalid_parameter")
    }

    @Test func pagesCarryMetadataAndBoundsAreEnforced() async throws {
        let alice = try await app.signUp("alice")
        var ids: [String] = []
        for index in 0..<7 { ids.append(try await app.createPost("mango number \(index)", by: alice)) }

        var seen: [String] = []
        for page in 1...3 {
            let response = try await app.client.get("/v1/search/posts?q=mango&per=3&page=\(page)")
            #expect(response.status == 200)
            #expect(response.json["metadata"]["page"].int == page)
            #expect(response.json["metadata"]["per"].int == 3)
            #expect(response.json["metadata"]["total"].int == 7)
            seen += response.json["items"].ids
        }
        #expect(seen == ids.reversed())
        let past = try await app.client.get("/v1/search/posts?q=mango&per=3&page=4")
        #expect(past.status == 200 && past.json["items"].array.isEmpty && past.json["metadata"]["total"].int == 7)

        let clamped = try await app.client.get("/v1/search/posts?q=mango&per=500")
        #expect(clamped.status == 200)
        #expect(clamped.json["metadata"]["per"].int == 50)
        #expect(clamped.json["items"].array.count == 7)

        let bad = [
            "q=mango&page=0", "q=mango&per=abc", "q=mango&per=0", "q=mango&page=-2", "q=mango&page=1e3",
            "q=mango&page=300&per=50",  // deeper than 10,000 results
            "", "q=", "q=%20%20%20", "q=\(String(repeating: "m", count: 101))", "q=mango%00",
            "q=mango&sort=TOP",
        ]
        for query in bad {
            let response = try await app.client.get("/v1/search/posts?\(query)")
            #expect(response.status == 400, "\(query)")
            #expect(response.json["code"].string == "invalid_parameter", "\(query)")
        }
        let longest = try await app.client.get("/v1/search/posts?q=\(String(repeating: "m", count: 100))")
        #expect(longest.status == 200)
    }

    /// `total` counts at most 10,000 matches, so a very common word costs a bounded count.
    @Test func totalSaturatesAtTenThousand() async throws {
        let alice = try await app.signUp("alice")
        try await app.insertPosts(10_050, by: alice, prefix: "flood ")
        let page = try await app.client.get("/v1/search/posts?q=flood&per=50&page=200")
        #expect(page.status == 200)
        #expect(page.json["metadata"]["total"].int == 10_000)
        #expect(page.json["items"].array.count == 50)
        let exact = try await app.client.get("/v1/search/posts?q=flood%2010049")
        #expect(exact.json["metadata"]["total"].int == 1)
    }

    @Test func usersAreFoundByPrefixThenSimilarity() async throws {
        let (kestrel, fan, alice, _) = try await app.signUp("kestrel", "fan", "alice", "other")
        try await app.updateProfile(["displayName": "Kestrel Watcher"], of: fan)
        try await app.updateProfile(["displayName": "Alice Wonderland"], of: alice)
        try await app.follow(kestrel, by: alice)

        let byPrefix = try await app.client.get("/v1/search/users?q=KESTR", token: alice.accessToken)
        #expect(byPrefix.status == 200)
        // The username prefix match first, then the display name that resembles the term.
        #expect(byPrefix.json["items"].ids == [kestrel.id, fan.id])
        #expect(byPrefix.json["metadata"]["total"].int == 2)
        let first = byPrefix.json["items"][0]
        #expect(first.keys == ["id", "username", "displayName", "bio", "followerCount", "followingCount", "postCount", "followedByMe"])
        #expect(first["followedByMe"].bool == true)
        #expect(first["followerCount"].int == 1)
        let anonymous = try await app.client.get("/v1/search/users?q=kestr")
        #expect(anonymous.json["items"][0]["followedByMe"].bool == false)

        let byDisplayName = try await app.client.get("/v1/search/users?q=wonderland")
        #expect(byDisplayName.json["items"].ids == [alice.id])
        let bySimilarity = try await app.client.get("/v1/search/users?q=Wonderlnd")  // a typo
        #expect(bySimilarity.json["items"].ids == [alice.id])

        // LIKE wildcards in the term match themselves, not everyone.
        for wildcard in ["%25", "e_t", "%5C", "a%25", "%5C%CC%81"] {
            let response = try await app.client.get("/v1/search/users?q=\(wildcard)")
            #expect(response.status == 200, "\(wildcard)")
            #expect(response.json["metadata"]["total"].int == 0, "\(wildcard)")
        }
        let paged = try await app.client.get("/v1/search/users?q=kestr&per=1&page=2")
        #expect(paged.json["items"].ids == [fan.id])
        #expect(paged.json["metadata"]["total"].int == 2)

        for query in ["", "q=", "q=%20", "q=\(String(repeating: "k", count: 101))", "q=k&per=abc", "q=k&page=0"] {
            let response = try await app.client.get("/v1/search/users?\(query)")
            #expect(response.status == 400 && response.json["code"].string == "invalid_parameter", "\(query)")
        }
    }
}
