import Chirp
import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

/// Password storage and checking: Argon2id at or above OWASP's minimum, upgraded on login when
/// the parameters change, bounded in concurrency, and no faster for unknown users. Hashing is
/// the point here, so these services hash as production does, not as other tests' services;
/// they are reached through the router, since HTTP is not.
@Suite struct PasswordTests {
    /// A service whose configuration leaves password hashing at its default, as production's.
    func startedHashingAsProduction(_ configure: (inout ChirpConfiguration) -> Void = { _ in }) async throws -> TestService {
        try await TestService.started(over: .router) { configuration in
            configuration.hashPasswordsAsProduction()
            configure(&configuration)
        }
    }

    @Test func storedHashesAreArgon2idAtTheOWASPMinimum() async throws {
        #expect(PasswordHasher.Parameters.owaspMinimum == .init(passes: 2, memoryBytes: 19 * 1024 * 1024))
        let app = try await startedHashingAsProduction()
        #expect(app.service.configuration.passwordHashing == .owaspMinimum)

        let user = try await app.signUp("argon")
        let stored = try await storedHash(of: user.username, in: app.database)
        #expect(stored.hasPrefix("$argon2id$v=19$"))
        #expect(argon2Parameters(stored) == ["m": 19_456, "t": 2, "p": 1])
        #expect(!stored.contains(user.password))

        // Salted: the same password never hashes alike.
        let twin = try await app.signUp("argon", password: user.password)
        #expect(try await storedHash(of: twin.username, in: app.database) != stored)
    }

    @Test func logInRehashesAHashMadeWithOtherParameters() async throws {
        // An older deployment hashed with weaker parameters ...
        let legacy = try await TestService.started(over: .router) { $0.passwordHashing = .init(passes: 1, memoryBytes: 8 * 1024 * 1024) }
        let user = try await legacy.signUp("legacy")
        let before = try await storedHash(of: user.username, in: legacy.database)
        #expect(argon2Parameters(before) == ["m": 8_192, "t": 1, "p": 1])

        // ... and the current one, on the same database, upgrades it at the next good login.
        let current = try TestServiceInstance(on: legacy.database, over: .router) { $0.hashPasswordsAsProduction() }
        let wrong = try await current.client.logIn(user.username, "not the password")
        #expect(wrong.status == 401)
        #expect(try await storedHash(of: user.username, in: legacy.database) == before)

        let login = try await current.client.logIn(user.username, user.password)
        #expect(login.status == 200)
        let after = try await storedHash(of: user.username, in: legacy.database)
        #expect(after != before)
        #expect(argon2Parameters(after) == ["m": 19_456, "t": 2, "p": 1])

        // The new hash holds the same password, and is not replaced again.
        let again = try await current.client.logIn(user.username, user.password)
        #expect(again.status == 200)
        #expect(try await storedHash(of: user.username, in: legacy.database) == after)
    }

    @Test func hashingBeyondTheBoundIsRefusedAtOnce() throws {
        let hasher = PasswordHasher(parameters: .owaspMinimum, maxConcurrent: 1)
        let clock = ContinuousClock()
        let start = clock.now
        let stored = try hasher.hash("correct horse battery")
        let hashTime = clock.now - start

        // One thread keeps the only slot busy; this one is then refused, without waiting.
        let occupier = Occupier(hasher: hasher, hash: stored)
        occupier.start()
        var refusals: [Duration] = []
        for _ in 0..<200 where refusals.count < 3 {
            let attempt = clock.now
            do {
                _ = try hasher.verify("correct horse battery", against: stored)
            } catch is PasswordHasher.Busy {
                refusals.append(clock.now - attempt)
            }
        }
        occupier.stop()

        #expect(refusals.count == 3)
        #expect(try #require(refusals.min()) * 10 < hashTime, "refusals \(refusals), a hash \(hashTime)")
        #expect(occupier.hashes > 0)
        // The slot is free again once the work is done.
        #expect(try hasher.verify("correct horse battery", against: stored))
    }

    /// Similar time by construction: an unknown user costs the same one Argon2id verification
    /// (against a decoy hash) as a wrong password, counted by the service itself, rather than
    /// timed on a machine whose noise is larger than the difference being looked for.
    @Test func unknownUsersAndWrongPasswordsDoTheSameWork() async throws {
        let app = try await startedHashingAsProduction { $0.rateLimits.loginFailuresPerUsernameAndAddress.limit = 1_000 }
        let user = try await app.signUp("timing")
        let suffix = UUID().uuidString.prefix(6).lowercased()
        for round in 0..<3 {
            for name in [user.username, "nobody_\(round)_\(suffix)"] {
                let before = try await app.hashesPerformed()
                let response = try await app.client.logIn(name, "not the password \(round)")
                #expect(response.status == 401)
                #expect(try await app.hashesPerformed() - before == 1, "\(name)")
            }
        }
    }


    @Test func everyByteOfThePasswordAndUsernameCounts() async throws {
        let hasher = PasswordHasher(parameters: .owaspMinimum, maxConcurrent: 4)
        let stored = try hasher.hash("correct horse battery")
        #expect(try hasher.verify("correct horse battery", against: stored))
        #expect(try !hasher.verify("correct horse battery\u{0}and more", against: stored))
        #expect(try !hasher.verify("correct horse batter", against: stored))

        let app = try await startedHashingAsProduction()
        let user = try await app.signUp("bytes")
        // A NUL must not end the comparison early, in the password or in the username.
        let smuggled = try await app.client.logIn(user.username, user.password + "\u{0}anything")
        #expect(smuggled.status == 401)
        let aliased = try await app.client.logIn(user.username + "\u{0}x", user.password)
        #expect(aliased.status == 401)
        #expect(aliased.json["code"].string == "unauthorized")
        let exact = try await app.client.logIn(user.username, user.password)
        #expect(exact.status == 200)
    }
}

private func storedHash(of username: String, in database: TestDatabase) async throws -> String {
    try await database.scalar(
        "select c.password_hash from credentials c join users u on u.id = c.user_id where u.username = \(username)",
        as: String.self)
}

/// `m`, `t` and `p` of an encoded Argon2 hash (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`).
private func argon2Parameters(_ encoded: String) -> [String: Int] {
    let fields = encoded.split(separator: "$")
    guard fields.count == 5 else { return [:] }
    var parameters: [String: Int] = [:]
    for pair in fields[2].split(separator: ",") {
        let parts = pair.split(separator: "=")
        if parts.count == 2, let value = Int(parts[1]) { parameters[String(parts[0])] = value }
    }
    return parameters
}


/// A thread that verifies passwords back to back until stopped, holding a hashing slot almost
/// all of the time.
private final class Occupier: Sendable {
    private let hasher: PasswordHasher
    private let hash: String
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)

    init(hasher: PasswordHasher, hash: String) {
        self.hasher = hasher
        self.hash = hash
    }

    var hashes: Int { count.load(ordering: .relaxed) }

    func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                if (try? hasher.verify("wrong password", against: hash)) != nil {
                    count.add(1, ordering: .relaxed)
                }
            }
            finished.store(true, ordering: .releasing)
        }
        thread.start()
        // Until the thread holds the slot, this one could take it instead.
        while count.load(ordering: .relaxed) == 0 && !finished.load(ordering: .acquiring) {
            usleep(1_000)
        }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }
}
