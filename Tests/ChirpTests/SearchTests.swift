@testable import Chirp
import Foundation
import HTTP
import Postgres
import TestSupport
import Testing

/// Full-text search of posts and prefix-then-similarity search of users: order, paging
/// metadata, bounds and hostile terms. Through the router: what is tested is the routes and
/// their queries, not HTTP.
@Suite struct SearchTests {
    /// What the tests of the ways to a page run with: the least `SearchLimits.commonFrom` may
    /// be, and a little more, so that a word is common with a few hundred posts.
    static let commonFrom = 1_100

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

    /// `total` is a count up to 1,000 matches and the database's estimate above, marked.
    @Test func totalsAreExactUpToAThousandThenMarkedAsEstimates() async throws {
        let alice = try await app.signUp("alice")
        try await app.insertPosts(1_000, by: alice, prefix: "drizzle ")
        try await app.insertPosts(1_050, by: alice, prefix: "flood ")
        try await app.database.execute("analyze posts")

        let drizzle = try await app.client.get("/v1/search/posts?q=drizzle&per=50")
        #expect(drizzle.json["metadata"]["total"].int == 1_000)
        #expect(drizzle.json["metadata"].keys == ["page", "per", "total"])
        let flood = try await app.client.get("/v1/search/posts?q=flood&per=50")
        #expect(flood.json["metadata"]["totalIsEstimate"].bool == true)
        #expect((1_001...2_000).contains(flood.json["metadata"]["total"].int ?? 0), "\(flood.json["metadata"])")
        // A full page deep down keeps the estimate; a short last page shows where the results end.
        let full = try await app.client.get("/v1/search/posts?q=flood&per=50&page=21")
        #expect(full.json["items"].array.count == 50 && full.json["metadata"]["totalIsEstimate"].bool == true)
        let last = try await app.client.get("/v1/search/posts?q=flood&per=40&page=27")
        #expect(last.json["items"].array.count == 10)
        #expect(last.json["metadata"]["total"].int == 1_050 && !last.json["metadata"]["totalIsEstimate"].exists)
        let exact = try await app.client.get("/v1/search/posts?q=flood%201049")
        #expect(exact.json["metadata"]["total"].int == 1 && !exact.json["metadata"]["totalIsEstimate"].exists)
        // Operators and all: a query that matches nothing is an exact 0.
        let contradiction = try await app.client.get("/v1/search/posts?q=flood%20-flood")
        #expect(contradiction.json["metadata"]["total"].int == 0 && !contradiction.json["metadata"]["totalIsEstimate"].exists)

        // Users follow the same rule.
        try await app.database.execute(
            "insert into users (username, display_name) select 'crowd_' || i, 'Crowd ' || i from generate_series(1, 1100) i")
        try await app.database.execute("analyze users")
        let crowd = try await app.client.get("/v1/search/users?q=crowd&per=50")
        #expect(crowd.status == 200 && crowd.json["items"].array.count == 50)
        #expect(crowd.json["metadata"]["totalIsEstimate"].bool == true)
        #expect((crowd.json["metadata"]["total"].int ?? 0) > 1_000)
        let one = try await app.client.get("/v1/search/users?q=\(alice.username)")
        #expect(one.json["items"].ids == [alice.id])
        #expect(one.json["metadata"]["total"].int == 1 && !one.json["metadata"]["totalIsEstimate"].exists)
    }

    /// A post search passes the estimate the service kept for its term instead of asking
    /// `app.planned_rows`, and reports the one it used, which chooses the page's shape: a kept
    /// estimate of a common word walks the timeline and is the total.
    @Test func aKeptEstimateIsUsedInsteadOfPlanningOneAgain() async throws {
        let alice = try await app.signUp("alice")
        try await app.insertPosts(1_050, by: alice, prefix: "flood ")
        try await app.database.execute("analyze posts")
        let request = HTTPRequest(method: .GET, path: "/v1/search/posts", query: ["q": "flood"])
        let identity = PostgresIdentity.anonymous.adding(SearchQueries.settings(statementTimeout: .seconds(60)))
        func search(estimate: Int?) async throws -> PostSearchPage {
            try await app.service.pool.execute(as: identity, readOnly: true, SearchQueries.posts(
                matching: try SearchTerm(request), order: .recent, page: try OffsetPage(request),
                commonFrom: app.service.configuration.search.commonFrom, estimate: estimate))
        }
        let planned = try await app.database.execute(PostgresQuery(
            sql: "select app.planned_rows('\(EstimatedMatches.posts)', array[websearch_to_tsquery('simple', 'flood')::text])",
            bindings: []).onlyRow { try $0.decode(Int.self, at: 0) })

        let first = try await search(estimate: nil)
        #expect(first.estimate == planned)
        // Estimated below `commonFrom`: every match read, and counted.
        #expect(planned < app.service.configuration.search.commonFrom)
        #expect(first.total.count == 1_050 && first.total.isEstimate)
        let kept = try await search(estimate: 7_777)
        #expect(kept.estimate == 7_777)
        #expect(kept.total.count == 7_777 && kept.total.isEstimate)
        #expect(kept.posts.map(\.id) == first.posts.map(\.id) && kept.posts.count == 20)
    }

    /// The kept estimates, on a clock the test moves: a term's estimate lasts until its
    /// minute's window ends, and at most `capacity` terms are kept.
    @Test func estimatesAreKeptForTheirMinuteAndBounded() {
        let clock = TestClock(seconds: 6_010)
        let estimates = SearchEstimates(capacity: 3, now: clock.read)
        #expect(estimates.estimate(of: "swift") == nil)
        estimates.remember(184_000, of: "swift")
        #expect(estimates.estimate(of: "swift") == 184_000)
        clock.set(6_059.9)
        #expect(estimates.estimate(of: "swift") == 184_000)
        clock.set(6_060)
        #expect(estimates.estimate(of: "swift") == nil)
        for word in ["a", "b", "c", "d", "e"] { estimates.remember(1, of: word) }
        #expect(["a", "b", "c", "d", "e"].filter { estimates.estimate(of: $0) != nil }.count == 3)
        #expect(estimates.estimate(of: "e") == 1)
    }

    /// Rare, unused and common words, and words whose statistics mislead, each through the way
    /// `SearchQueries` takes for them: every page is the one a plain sort of every match gives.
    @Test func everyWayToAPageGivesThePageOfAFullSort() async throws {
        let app = try await TestService.started(over: .router) { $0.search.commonFrom = Self.commonFrom }
        let alice = try await app.insertWordsOfEveryKind()
        // 1,150 newer "sudden" posts that the statistics have not seen: they take it for rare.
        try await app.database.execute("""
            insert into posts (author_id, body, created_at) select \(alice.id)::uuid, 'sudden ' || i, now() + i * interval '1 second'
            from generate_series(1, 1150) i
            """)

        for word in ["kiwi", "nobodyusedthis", "hive", "ancient", "sudden"] {
            for (sort, order) in [("recent", "created_at desc, id desc"), ("top", "like_count desc, id desc")] {
                for (page, per) in [(1, 20), (10, 20), (3, 7)] {
                    let target = "/v1/search/posts?q=\(word)&sort=\(sort)&page=\(page)&per=\(per)"
                    let response = try await app.client.get(target)
                    #expect(response.status == 200, "\(target)")
                    let expected = try await app.database.execute(PostgresQuery(
                        sql: "select id::text from posts where search_vector @@ websearch_to_tsquery('simple', $1) order by \(order) limit $2 offset $3",
                        bindings: [word, String(per), String((page - 1) * per)]).rows { try $0.decode(String.self, at: 0) })
                    #expect(response.json["items"].ids == expected, "\(target)")
                }
            }
        }
        for (word, count) in [("kiwi", 5), ("nobodyusedthis", 0)] {
            let metadata = try await app.client.get("/v1/search/posts?q=\(word)").json["metadata"]
            #expect(metadata["total"].int == count && !metadata["totalIsEstimate"].exists, "\(word): \(metadata)")
        }
        // The statistics predate the sudden posts: scaled to the table's size now, they put each
        // of the others at more posts than it has; "sudden" is at least what the sort read.
        for (word, count) in [("hive", 1_400), ("ancient", 1_300), ("sudden", 1_150)] {
            let metadata = try await app.client.get("/v1/search/posts?q=\(word)").json["metadata"]
            #expect(metadata["totalIsEstimate"].bool == true, "\(word)")
            #expect((Self.commonFrom...2 * count).contains(metadata["total"].int ?? 0), "\(word): \(metadata)")
        }
    }

    /// What the page statement reads, run as the service runs it: a word nobody used and a rare
    /// one never walk the timeline; a common word walks it only to its page and never reads
    /// every match; a word used long ago walks a bounded stretch, then finds its newest matches
    /// by hour (by time) or reads every match (by likes); nothing reads the table whole.
    @Test func eachWayReadsWhatItsWordNeeds() async throws {
        let app = try await TestService.started(over: .router) { $0.search.commonFrom = Self.commonFrom }
        _ = try await app.insertWordsOfEveryKind()
        let byTime = "posts_created_at_id_idx", byLikes = "posts_like_count_id_idx", matches = "posts_search_idx"

        for word in ["nobodyusedthis", "kiwi"] {
            let reads = try await app.reads(of: word)
            #expect(reads.rows[byTime] == nil && reads.rows[byLikes] == nil, "\(word): \(reads)")
            // Read through the index, by `app.posts_matching` (0028), whose reads the plan does not show.
            #expect(reads.functionRows["posts_matching"] != nil && reads.sequentialScans == 0, "\(word): \(reads)")
        }
        let hive = try await app.reads(of: "hive")
        #expect(hive.rows[byTime] == 20 && hive.rows[matches] == nil && hive.sequentialScans == 0, "\(hive)")
        let deep = try await app.reads(of: "hive", page: 50)
        #expect(deep.rows[byTime] == 1_000 && deep.rows[matches] == nil, "\(deep)")
        // The top 600 or so posts by likes are ancient ones (up to 12 likes; a hive post has 6 at most).
        let top = try await app.reads(of: "hive", sort: "top")
        #expect((20...1_400).contains(top.rows[byLikes] ?? 0) && top.rows[matches] == nil, "\(top)")
        // Behind 1,400 newer posts: the walk stops at its limit, four times the posts expected to
        // hold the page (the statistics put 1,300 of the 2,700 posts at the word: 166, well under
        // the cap of 64 a position), and the newest matches are found by hour: today holds none
        // (skipped whole), and of the hour a year ago that holds them, no more are read than four
        // times the page, or, when it holds more, the page's 20 walked newest first.
        let ancient = try await app.reads(of: "ancient")
        #expect((150...180).contains(ancient.rows[byTime] ?? 0) && ancient.rows[matches] == nil, "\(ancient)")
        #expect((20...80).contains(ancient.functionRows["posts_matching_newest"] ?? 0) && ancient.sequentialScans == 0, "\(ancient)")
        // By likes, the most liked posts are ancient ones: the walk finds the page, never by hour.
        let ancientTop = try await app.reads(of: "ancient", sort: "top")
        #expect(ancientTop.rows[byLikes] != nil && ancientTop.functionRows.isEmpty, "\(ancientTop)")
    }

    /// Each search statement runs under the configured timeout: a search that would run past it
    /// answers 503, with the search budget's headers, and other requests are not affected.
    @Test func aSearchPastItsStatementTimeoutIs503() async throws {
        let app = try await TestService.started(over: .router) { $0.search.statementTimeout = .milliseconds(1) }
        let alice = try await app.signUp("alice")
        try await app.insertPosts(2_500, by: alice, prefix: "slowpoke ")
        try await app.database.execute("analyze posts")
        // Reading and sorting 2,500 matches (and planning the statement, on its first run): far
        // more than a millisecond.
        let slow = try await app.client.get("/v1/search/posts?q=slowpoke&per=25&page=100")
        #expect(slow.status == 503)
        #expect(slow.json["code"].string == "unavailable" && slow.json["detail"].string == "the request took too long")
        #expect(slow.header("Retry-After") == "1")
        #expect(slow.header("RateLimit") != nil)
        #expect(try await app.client.get("/v1/posts?limit=5").status == 200)
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

extension TestService {
    /// 1,300 "ancient" posts a year old (0 to 12 likes), then 1,400 newer "hive" posts (0 to 6
    /// likes), 5 of them also "kiwi"; the statistics gathered, and kept as they are from then
    /// on (autovacuum off for posts). Returns their author.
    func insertWordsOfEveryKind() async throws -> TestUser {
        let alice = try await signUp("alice")
        try await database.execute("""
            insert into posts (author_id, body, created_at, like_count)
            select \(alice.id)::uuid, 'ancient ' || i, now() - interval '1 year' - i * interval '1 second', i % 13
            from generate_series(1, 1300) i
            """)
        try await database.execute("""
            insert into posts (author_id, body, created_at, like_count)
            select \(alice.id)::uuid, 'hive ' || i || case when i % 250 = 0 then ' kiwi' else '' end,
                   now() - i * interval '1 second', i % 7
            from generate_series(1, 1400) i
            """)
        try await database.execute("analyze posts")
        try await database.execute("alter table posts set (autovacuum_enabled = false)")
        return alice
    }

    /// What the post search statement for `word` reads, run as an anonymous search runs it,
    /// under `SearchQueries.settings` (see `planReads(of:as:)`).
    func reads(of word: String, sort: String = "recent", page: Int = 1) async throws -> PlanReads {
        let request = HTTPRequest(method: .GET, path: "/v1/search/posts", query: ["q": word, "sort": sort, "page": String(page)])
        let query = SearchQueries.posts(
            matching: try SearchTerm(request), order: try PostSearchOrder(sort), page: try OffsetPage(request),
            commonFrom: service.configuration.search.commonFrom).query
        return try await planReads(
            of: query, as: PostgresIdentity.anonymous.adding(SearchQueries.settings(statementTimeout: .seconds(60))))
    }
}
