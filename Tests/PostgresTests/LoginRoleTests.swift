import Foundation
import Postgres
import TestSupport
import Testing

/// A login that bypasses row-level security voids every policy (one `set_config('role',
/// 'none', …)` undoes a transaction's request role), so a pool refuses it unless told.
@Suite(.timeLimit(.minutes(1))) struct LoginRoleTests {
    private func firstStatement(as login: String, allowingBypass: Bool) async throws -> String {
        var configuration = try TestCluster.adminConfiguration()
        configuration.set("user", login)
        configuration.allowsRowSecurityBypass = allowingBypass
        let pool = try PostgresPool(configuration: configuration, pool: .init(maxConnections: 1), eventLoop: TestCluster.eventLoop)
        defer { pool.close() }
        return try await pool.execute(as: PostgresIdentity(role: login), PostgresQuery("select session_user::text").value(String.self))
    }

    private func refusal(as login: String) async throws -> PostgresError? {
        do {
            _ = try await firstStatement(as: login, allowingBypass: false)
            return nil
        } catch let error as PostgresError {
            return error
        }
    }

    @Test func aSuperuserLoginIsRefusedUnlessAllowed() async throws {
        let error = try #require(try await refusal(as: "postgres"))
        #expect(error.message.contains("postgres is a superuser or has BYPASSRLS"))
        #expect(error.message.contains("CHIRP_ALLOW_BYPASSRLS=1"))
        #expect(try await firstStatement(as: "postgres", allowingBypass: true) == "postgres")
    }

    @Test func aBypassRLSLoginIsRefusedAndAPlainOneIsNot() async throws {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let bypassing = "bypassing_\(suffix)", plain = "plain_\(suffix)"
        let admin = try TestCluster.adminPool()
        defer { admin.close() }
        try await admin.withSession {
            try await $0.unsafeExecuteScript("create role \(bypassing) login bypassrls; create role \(plain) login")
        }
        #expect(try await refusal(as: bypassing) != nil)
        #expect(try await firstStatement(as: plain, allowingBypass: false) == plain)
        try await admin.withSession { try await $0.unsafeExecuteScript("drop role \(bypassing); drop role \(plain)") }
    }
}
