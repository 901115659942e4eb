import Chirp
import Foundation
import Postgres
import TestSupport
import Testing

/// Authorization lives in the database: through the service's own login role and the identity
/// it takes per transaction, a user cannot create, change or delete another user's rows even
/// when asked to in plain SQL, the anonymous role cannot write at all, nobody but the auth
/// service reads secrets, and an identity ends with its transaction.
@Suite final class RowLevelSecurityTests {
    let database: TestDatabase
    /// The service's login role, one connection: every transaction below shares it.
    let pool: PostgresPool
    let world: OwnershipFixture

    init() async throws {
        database = try await TestDatabase.migrated()
        pool = try PostgresPool(
            configuration: try database.service, pool: .init(maxConnections: 1, leaseTimeout: .seconds(5)), eventLoop: TestCluster.eventLoop)
        world = try await OwnershipFixture(database)
    }

    deinit {
        pool.close()
    }

    @Test func usersCannotCreateRowsInSomeoneElsesName() async throws {
        let (alice, bob) = (world.alice, world.bob)
        try await expectRefusedChangingNothing(as: .user(alice), [
            "insert into posts (author_id, body) values (\(bob), 'words put in his mouth')",
            "insert into likes (user_id, post_id) values (\(bob), \(world.alicePost))",
            "insert into comments (post_id, author_id, body) values (\(world.bobPost), \(bob), 'forged')",
            "insert into comments (post_id, parent_id, author_id, body) values (\(world.bobPost), \(world.bobComment), \(bob), 'forged reply')",
            "insert into follows (follower_id, followee_id) values (\(bob), \(alice))",
            "insert into follows (follower_id, followee_id) values (\(bob), \(world.carol))",
        ])

        // The same statements in her own name pass: the refusals above are about whose row it is.
        for query: PostgresQuery in [
            "insert into posts (author_id, body) values (\(alice), 'my own words')",
            "insert into likes (user_id, post_id) values (\(alice), \(world.bobPost))",
            "insert into comments (post_id, author_id, body) values (\(world.bobPost), \(alice), 'my own comment')",
            "insert into follows (follower_id, followee_id) values (\(alice), \(world.carol))",
        ] {
            #expect(try await pool.execute(as: .user(alice), query as PostgresQuery).affectedRows == 1, "\(query.sql)")
        }
    }

    @Test func usersCannotChangeOrDeleteSomeoneElsesRows() async throws {
        let (alice, bob) = (world.alice, world.bob)
        // Statements the grants refuse outright.
        let before = try await expectRefusedChangingNothing(as: .user(alice), [
            "update posts set like_count = 1000000 where id = \(world.bobPost)",
            "update posts set edited_at = null where id = \(world.bobPost)",
            "update comments set reply_count = 1000000 where id = \(world.bobComment)",
            "update likes set created_at = now() where user_id = \(bob)",
            "update follows set followee_id = \(alice) where follower_id = \(bob)",
            "update users set follower_count = 1000000 where id = \(bob)",
            "delete from users where id = \(bob)",
        ])
        // Statements the policies make touch nothing of Bob's.
        for query: PostgresQuery in [
            "update users set bio = 'hacked', display_name = 'hacked' where id = \(bob)",
            "update posts set body = 'edited' where id = \(world.bobPost)",
            "update comments set body = 'edited' where id = \(world.bobComment)",
            "delete from posts where id = \(world.bobPost)",
            "delete from comments where id = \(world.bobComment)",
            "delete from likes where user_id = \(bob)",
            "delete from follows where follower_id = \(bob)",
        ] {
            #expect(try await pool.execute(as: .user(alice), query as PostgresQuery).affectedRows == 0, "\(query.sql)")
        }
        #expect(try await world.snapshot() == before)

        // Without a WHERE clause, only her own rows are in reach.
        #expect(try await pool.execute(as: .user(alice), "update users set bio = 'everyone'" as PostgresQuery).affectedRows == 1)
        #expect(try await pool.execute(as: .user(alice), "delete from likes" as PostgresQuery).affectedRows == 1)
        #expect(try await pool.execute(as: .user(alice), "delete from follows" as PostgresQuery).affectedRows == 1)
        #expect(try await database.scalar("select bio from users where id = \(alice)", as: String.self) == "everyone")
        #expect(try await database.scalar("select bio = '' from users where id = \(bob)", as: Bool.self))
        #expect(try await database.scalar("select count(*) from likes where user_id = \(bob)", as: Int.self) == 1)
        #expect(try await database.scalar("select count(*) from follows where follower_id = \(bob)", as: Int.self) == 1)
    }

    @Test func aPostsAuthorMayDeleteCommentsOnItAndNoOtherComments() async throws {
        let (alice, bob) = (world.alice, world.bob)
        // Bob's comment on Alice's post is hers to remove; his comment on his own post is not.
        let onHerPost = try await database.scalar(
            "insert into comments (post_id, author_id, body) values (\(world.alicePost), \(bob), 'rude') returning id", as: PostgresUUID.self)
        #expect(try await pool.execute(as: .user(alice), "delete from comments where id = \(world.bobComment)" as PostgresQuery).affectedRows == 0)
        #expect(try await pool.execute(as: .user(alice), "delete from comments where id = \(onHerPost)" as PostgresQuery).affectedRows == 1)
        #expect(try await database.scalar("select count(*) from comments where id = \(world.bobComment)", as: Int.self) == 1)
    }

    @Test func anonymousCannotWriteAnything() async throws {
        try await expectRefusedChangingNothing(as: .anonymous, [
            "insert into users (username) values ('intruder')",
            "update users set bio = 'x'",
            "delete from users",
            "insert into posts (author_id, body) values (\(world.bob), 'anonymous words')",
            "update posts set body = 'x'",
            "delete from posts",
            "insert into likes (user_id, post_id) values (\(world.bob), \(world.alicePost))",
            "delete from likes",
            "insert into comments (post_id, author_id, body) values (\(world.bobPost), \(world.bob), 'x')",
            "update comments set body = 'x'",
            "delete from comments",
            "insert into follows (follower_id, followee_id) values (\(world.bob), \(world.carol))",
            "delete from follows",
            "update credentials set password_hash = 'x'",
            "update refresh_tokens set revoked_at = now()",
        ])
    }

    @Test func onlyTheAuthServiceReadsSecrets() async throws {
        for identity in [PostgresIdentity.user(world.alice), .user(world.bob), .anonymous] {
            for query: PostgresQuery in [
                "select password_hash from credentials",
                "select token_hash from refresh_tokens",
                "select count(*) from credentials",
                "select count(*) from refresh_tokens",
                "select bucket from rate_limit_hits",
            ] {
                await expectRefused(as: identity, query)
            }
        }
        // The login role alone, with no identity taken, holds nothing either.
        for query: PostgresQuery in ["select count(*) from posts", "select count(*) from credentials"] {
            let error = await #expect(throws: PostgresError.self) { try await self.pool.withSession { try await $0.execute(query) } }
            #expect(error?.sqlState == .insufficientPrivilege, "\(query.sql)")
        }
        // The control: the auth login does read them, as the auth role.
        let auth = try PostgresPool(
            configuration: ChirpConfiguration.authLogin(of: try database.service), pool: .init(maxConnections: 1),
            eventLoop: TestCluster.eventLoop)
        defer { auth.close() }
        #expect(try await auth.execute(as: .authService, PostgresQuery("select count(*) from credentials").value(Int.self)) == 2)
    }

    /// PostgreSQL checks a role switch against the login role, not the role in effect: the
    /// service's login cannot become the sign-in role at all, and the old auth role it can still
    /// become holds nothing, so no statement run on it, injected into any request, reaches
    /// credentials or refresh tokens (0021).
    @Test func theServiceLoginCannotBecomeTheAuthRole() async throws {
        for identity in [PostgresIdentity.user(world.alice), .anonymous] {
            for query: PostgresQuery in [
                "select set_config('role', 'chirp_signin', true)",
                "select set_config('role', 'chirp_owner', true)",
                "select set_config('role', 'chirp_auth_service', true)",
                "select set_config('role', 'chirp_auth', true), (select count(*) from credentials)",
                "select set_config('role', 'chirp_auth', true), (select count(*) from refresh_tokens)",
            ] {
                await expectRefused(as: identity, query)
            }
        }
        let error = await #expect(throws: PostgresError.self) {
            try await self.pool.execute(as: .authService, PostgresQuery("select count(*) from credentials").value(Int.self))
        }
        #expect(error?.sqlState == .insufficientPrivilege)
        // And the auth login can become nothing but the auth role.
        let auth = try PostgresPool(
            configuration: ChirpConfiguration.authLogin(of: try database.service), pool: .init(maxConnections: 1),
            eventLoop: TestCluster.eventLoop)
        defer { auth.close() }
        for role in ["chirp_user", "chirp_user_outside_blocks", "chirp_anon", "chirp_auth", "chirp_owner", "chirp_service"] {
            let refused = await #expect(throws: PostgresError.self) {
                try await auth.execute(as: PostgresIdentity(role: role), PostgresQuery("select 1").value(Int.self))
            }
            #expect(refused?.sqlState == .insufficientPrivilege, "\(role)")
        }
    }

    /// A signed-in transaction's session check chooses its role: a user in no block reads as
    /// chirp_user_outside_blocks, whose reads of posts carry no block check, and a user in a
    /// block as chirp_user, whose reads check every post's author against the blocks.
    @Test func theSessionCheckChoosesTheRoleByBlocks() async throws {
        let session = PostgresUUID(UUID())
        try await database.execute("""
            insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
            values (\(world.alice), \(session), sha256(convert_to(\(session.lowercasedString), 'UTF8')), now() + interval '1 hour')
            """)
        let alice = PostgresIdentity.user(Viewer(id: world.alice, session: session))
        let role = PostgresQuery("select current_user::text").value(String.self)
        let plan = PostgresQuery("explain (costs off) select id from posts order by created_at desc, id desc limit 21")
            .rows { try $0.decode(String.self, at: 0) }
        #expect(try await pool.execute(as: alice, readOnly: true, role) == "chirp_user_outside_blocks")
        #expect(try await !pool.execute(as: alice, readOnly: true, plan).contains { $0.contains("SubPlan") })
        let bobsPosts = PostgresQuery("select count(*) from posts where author_id = \(world.bob)").value(Int.self)
        #expect(try await pool.execute(as: alice, readOnly: true, bobsPosts) == 1)

        try await database.execute("insert into blocks (blocker_id, blocked_id) values (\(world.bob), \(world.alice))")
        #expect(try await pool.execute(as: alice, readOnly: true, role) == "chirp_user")
        #expect(try await pool.execute(as: alice, readOnly: true, plan).contains { $0.contains("SubPlan") })
        #expect(try await pool.execute(as: alice, readOnly: true, bobsPosts) == 0)
    }

    @Test func anIdentityEndsWithItsTransaction() async throws {
        let plain = PostgresQuery("select current_user::text, coalesce(current_setting('app.user_id', true), '')")
            .onlyRow { try $0.decode((String, String).self) }
        func bare() async throws -> (String, String, Int32) {
            try await pool.withSession { session in
                let (role, user) = try await session.execute(plain)
                return (role, user, session.backendPID)
            }
        }

        let (role, user) = try await pool.execute(as: .user(world.alice), plain)
        #expect(role == "chirp_user")
        #expect(user == world.alice.lowercasedString)
        let (afterRole, afterUser, pid) = try await bare()
        #expect(afterRole == "chirp_service")
        #expect(afterUser == "")

        // The next request on the same connection starts from nothing.
        let (anonRole, anonUser) = try await pool.execute(as: .anonymous, plain)
        #expect(anonRole == "chirp_anon")
        #expect(anonUser == "")

        // Also after a transaction that failed half-way ...
        await expectRefused(as: .user(world.alice), "insert into posts (author_id, body) values (\(world.bob), 'x')")
        #expect(try await bare().0 == "chirp_service")
        #expect(try await bare().1 == "")

        // ... and after one whose body threw.
        struct Abandon: Error {}
        await #expect(throws: Abandon.self) {
            try await self.pool.withTransaction(as: .user(self.world.bob)) { transaction in
                _ = try await transaction.execute(plain)
                throw Abandon()
            }
        }
        let (lastRole, lastUser, lastPID) = try await bare()
        #expect(lastRole == "chirp_service")
        #expect(lastUser == "")
        // All of it on one connection.
        #expect(lastPID == pid)
        #expect(pool.statistics.connectionsOpened == 1)
    }

    /// Every statement fails with SQLSTATE 42501 (insufficient privilege), and nothing of Bob's,
    /// Carol's or anyone's secrets changed; returns that unchanged snapshot.
    @discardableResult
    private func expectRefusedChangingNothing(
        as identity: PostgresIdentity, _ queries: [PostgresQuery], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let before = try await world.snapshot()
        for query in queries { await expectRefused(as: identity, query, sourceLocation: sourceLocation) }
        #expect(try await world.snapshot() == before, sourceLocation: sourceLocation)
        return before
    }

    /// The statement fails with SQLSTATE 42501 (insufficient privilege).
    private func expectRefused(
        as identity: PostgresIdentity, _ query: PostgresQuery, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            let affected = try await pool.execute(as: identity, query.affectedRows)
            Issue.record("\(identity.role) was allowed: \(query.sql) (\(affected) rows)", sourceLocation: sourceLocation)
        } catch let error as PostgresError {
            #expect(error.sqlState == .insufficientPrivilege, "\(query.sql): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(query.sql): \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Alice (the acting user), Bob (her target), Carol, and some of everything, made as superuser.
struct OwnershipFixture {
    let database: TestDatabase
    let alice: PostgresUUID
    let bob: PostgresUUID
    let carol: PostgresUUID
    let alicePost: PostgresUUID
    let bobPost: PostgresUUID
    let bobComment: PostgresUUID

    init(_ database: TestDatabase) async throws {
        self.database = database
        func inserted(_ query: PostgresQuery) async throws -> PostgresUUID {
            try await database.scalar(query, as: PostgresUUID.self)
        }
        alice = try await inserted("insert into users (username, display_name) values ('alice', 'alice') returning id")
        bob = try await inserted("insert into users (username, display_name) values ('bob', 'bob') returning id")
        carol = try await inserted("insert into users (username, display_name) values ('carol', 'carol') returning id")
        alicePost = try await inserted("insert into posts (author_id, body) values (\(alice), 'alice writes') returning id")
        bobPost = try await inserted("insert into posts (author_id, body) values (\(bob), 'bob writes') returning id")
        bobComment = try await inserted(
            "insert into comments (post_id, author_id, body) values (\(bobPost), \(bob), 'bob comments') returning id")
        try await database.execute(
            PostgresQuery("insert into likes (user_id, post_id) values (\(bob), \(bobPost)), (\(alice), \(alicePost))"),
            PostgresQuery("insert into follows (follower_id, followee_id) values (\(bob), \(carol)), (\(alice), \(bob))"),
            PostgresQuery("insert into credentials (user_id, password_hash) values (\(alice), 'not a real hash'), (\(bob), 'not a real hash')"),
            PostgresQuery("""
                insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
                values (\(bob), gen_random_uuid(), '\\x00'::bytea, now() + interval '1 day')
                """))
    }

    /// Everything of Bob's and Carol's, and every secret, as one comparable text.
    func snapshot() async throws -> String {
        try await database.scalar(
            """
            select concat_ws(' | ',
              (select string_agg(concat_ws(',', id, username, display_name, bio, follower_count, following_count, post_count), ';' order by id)
                 from users where id <> \(alice)),
              (select string_agg(concat_ws(',', id, author_id, body, like_count, comment_count), ';' order by id) from posts where author_id <> \(alice)),
              (select string_agg(concat_ws(',', id, post_id, parent_id, author_id, body, reply_count), ';' order by id) from comments where author_id <> \(alice)),
              (select string_agg(concat_ws(',', user_id, post_id, created_at), ';' order by user_id, post_id) from likes where user_id <> \(alice)),
              (select string_agg(concat_ws(',', follower_id, followee_id, created_at), ';' order by follower_id, followee_id) from follows where follower_id <> \(alice)),
              (select string_agg(concat_ws(',', user_id, password_hash, updated_at), ';' order by user_id) from credentials),
              (select string_agg(concat_ws(',', id, revoked_at, used_at), ';' order by id) from refresh_tokens))
            """,
            as: String.self)
    }
}
