import Chirp
import Foundation
import Postgres
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

    init() throws {
        database = try TestDatabase()
        pool = PostgresPool(configuration: database.service, pool: .init(maxConnections: 1, leaseTimeout: .seconds(5)))
        world = try OwnershipFixture(database)
    }

    deinit {
        pool.close()
    }

    @Test func usersCannotCreateRowsInSomeoneElsesName() throws {
        let (alice, bob) = (world.alice, world.bob)
        let before = try world.snapshot()
        for query: PostgresQuery in [
            "insert into posts (author_id, body) values (\(bob), 'words put in his mouth')",
            "insert into likes (user_id, post_id) values (\(bob), \(world.alicePost))",
            "insert into comments (post_id, author_id, body) values (\(world.bobPost), \(bob), 'forged')",
            "insert into comments (post_id, parent_id, author_id, body) values (\(world.bobPost), \(world.bobComment), \(bob), 'forged reply')",
            "insert into follows (follower_id, followee_id) values (\(bob), \(alice))",
            "insert into follows (follower_id, followee_id) values (\(bob), \(world.carol))",
        ] {
            expectRefused(as: .user(alice), query)
        }
        #expect(try world.snapshot() == before)

        // The same statements in her own name pass: the refusals above are about whose row it is.
        for query: PostgresQuery in [
            "insert into posts (author_id, body) values (\(alice), 'my own words')",
            "insert into likes (user_id, post_id) values (\(alice), \(world.bobPost))",
            "insert into comments (post_id, author_id, body) values (\(world.bobPost), \(alice), 'my own comment')",
            "insert into follows (follower_id, followee_id) values (\(alice), \(world.carol))",
        ] {
            #expect(try pool.execute(as: .user(alice), [query])[0].affectedRows == 1, "\(query.sql)")
        }
    }

    @Test func usersCannotChangeOrDeleteSomeoneElsesRows() throws {
        let (alice, bob) = (world.alice, world.bob)
        let before = try world.snapshot()
        // Statements the grants refuse outright.
        for query: PostgresQuery in [
            "update posts set body = 'edited' where id = \(world.bobPost)",
            "update comments set body = 'edited' where id = \(world.bobComment)",
            "update likes set created_at = now() where user_id = \(bob)",
            "update follows set followee_id = \(alice) where follower_id = \(bob)",
            "update users set follower_count = 1000000 where id = \(bob)",
            "delete from users where id = \(bob)",
        ] {
            expectRefused(as: .user(alice), query)
        }
        // Statements the policies make touch nothing of Bob's.
        for query: PostgresQuery in [
            "update users set bio = 'hacked', display_name = 'hacked' where id = \(bob)",
            "delete from posts where id = \(world.bobPost)",
            "delete from comments where id = \(world.bobComment)",
            "delete from likes where user_id = \(bob)",
            "delete from follows where follower_id = \(bob)",
        ] {
            #expect(try pool.execute(as: .user(alice), [query])[0].affectedRows == 0, "\(query.sql)")
        }
        #expect(try world.snapshot() == before)

        // Without a WHERE clause, only her own rows are in reach.
        #expect(try pool.execute(as: .user(alice), ["update users set bio = 'everyone'"])[0].affectedRows == 1)
        #expect(try pool.execute(as: .user(alice), ["delete from likes"])[0].affectedRows == 1)
        #expect(try pool.execute(as: .user(alice), ["delete from follows"])[0].affectedRows == 1)
        #expect(try database.scalar("select bio from users where id = \(alice)", as: String.self) == "everyone")
        #expect(try database.scalar("select bio = '' from users where id = \(bob)", as: Bool.self))
        #expect(try database.scalar("select count(*) from likes where user_id = \(bob)", as: Int.self) == 1)
        #expect(try database.scalar("select count(*) from follows where follower_id = \(bob)", as: Int.self) == 1)
    }

    @Test func aPostsAuthorMayDeleteCommentsOnItAndNoOtherComments() throws {
        let (alice, bob) = (world.alice, world.bob)
        // Bob's comment on Alice's post is hers to remove; his comment on his own post is not.
        let onHerPost = try database.scalar(
            "insert into comments (post_id, author_id, body) values (\(world.alicePost), \(bob), 'rude') returning id", as: PostgresUUID.self)
        #expect(try pool.execute(as: .user(alice), ["delete from comments where id = \(world.bobComment)"])[0].affectedRows == 0)
        #expect(try pool.execute(as: .user(alice), ["delete from comments where id = \(onHerPost)"])[0].affectedRows == 1)
        #expect(try database.scalar("select count(*) from comments where id = \(world.bobComment)", as: Int.self) == 1)
    }

    @Test func anonymousCannotWriteAnything() throws {
        let before = try world.snapshot()
        for query: PostgresQuery in [
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
        ] {
            expectRefused(as: .anonymous, query)
        }
        #expect(try world.snapshot() == before)
    }

    @Test func onlyTheAuthServiceReadsSecrets() throws {
        for identity in [PostgresIdentity.user(world.alice), .user(world.bob), .anonymous] {
            for query: PostgresQuery in [
                "select password_hash from credentials",
                "select token_hash from refresh_tokens",
                "select count(*) from credentials",
                "select count(*) from refresh_tokens",
                "select bucket from rate_limit_hits",
            ] {
                expectRefused(as: identity, query)
            }
        }
        // The login role alone, with no identity taken, holds nothing either.
        for query: PostgresQuery in ["select count(*) from posts", "select count(*) from credentials"] {
            let error = #expect(throws: PostgresError.self) { try self.pool.withConnection { try $0.query(query) } }
            #expect(error?.sqlState == .insufficientPrivilege, "\(query.sql)")
        }
        // The control: the auth service does read them.
        let hashes = try pool.execute(as: .authService, ["select count(*) from credentials"])[0]
        #expect(try hashes.rows[0].decode(Int.self, at: 0) == 2)
    }

    @Test func anIdentityEndsWithItsTransaction() throws {
        let plain: PostgresQuery = "select current_user::text, coalesce(current_setting('app.user_id', true), '')"
        func bare() throws -> (String, String, Int32) {
            try pool.withConnection { connection in
                let (role, user) = try connection.query(plain).rows[0].decode((String, String).self)
                return (role, user, connection.backendPID)
            }
        }

        let (role, user) = try pool.execute(as: .user(world.alice), [plain])[0].rows[0].decode((String, String).self)
        #expect(role == "chirp_user")
        #expect(user == world.alice.lowercasedString)
        let (afterRole, afterUser, pid) = try bare()
        #expect(afterRole == "chirp_service")
        #expect(afterUser == "")

        // The next request on the same connection starts from nothing.
        let (anonRole, anonUser) = try pool.execute(as: .anonymous, [plain])[0].rows[0].decode((String, String).self)
        #expect(anonRole == "chirp_anon")
        #expect(anonUser == "")

        // Also after a transaction that failed half-way ...
        expectRefused(as: .user(world.alice), "insert into posts (author_id, body) values (\(world.bob), 'x')")
        #expect(try bare().0 == "chirp_service")
        #expect(try bare().1 == "")

        // ... and after one whose body threw.
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try pool.withTransaction(as: .user(world.bob)) { transaction in
                _ = try transaction.query(plain)
                throw Abandon()
            }
        }
        let (lastRole, lastUser, lastPID) = try bare()
        #expect(lastRole == "chirp_service")
        #expect(lastUser == "")
        // All of it on one connection.
        #expect(lastPID == pid)
        #expect(pool.statistics.connectionsOpened == 1)
    }

    /// The statement fails with SQLSTATE 42501 (insufficient privilege).
    private func expectRefused(
        as identity: PostgresIdentity, _ query: PostgresQuery, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let results = try pool.execute(as: identity, [query])
            Issue.record("\(identity.role) was allowed: \(query.sql) (\(results[0].affectedRows) rows)", sourceLocation: sourceLocation)
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

    init(_ database: TestDatabase) throws {
        self.database = database
        let connection = try database.adminConnection()
        func user(_ name: String) throws -> PostgresUUID {
            try connection.query("insert into users (username, display_name) values (\(name), \(name)) returning id")
                .rows[0].decode(PostgresUUID.self, at: 0)
        }
        alice = try user("alice")
        bob = try user("bob")
        carol = try user("carol")
        alicePost = try connection.query("insert into posts (author_id, body) values (\(alice), 'alice writes') returning id")
            .rows[0].decode(PostgresUUID.self, at: 0)
        bobPost = try connection.query("insert into posts (author_id, body) values (\(bob), 'bob writes') returning id")
            .rows[0].decode(PostgresUUID.self, at: 0)
        bobComment = try connection.query(
            "insert into comments (post_id, author_id, body) values (\(bobPost), \(bob), 'bob comments') returning id")
            .rows[0].decode(PostgresUUID.self, at: 0)
        try connection.pipeline([
            "insert into likes (user_id, post_id) values (\(bob), \(bobPost)), (\(alice), \(alicePost))",
            "insert into follows (follower_id, followee_id) values (\(bob), \(carol)), (\(alice), \(bob))",
            "insert into credentials (user_id, password_hash) values (\(alice), 'not a real hash'), (\(bob), 'not a real hash')",
            """
            insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
            values (\(bob), gen_random_uuid(), '\\x00'::bytea, now() + interval '1 day')
            """,
        ])
    }

    /// Everything of Bob's and Carol's, and every secret, as one comparable text.
    func snapshot() throws -> String {
        try database.scalar(
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
