import Foundation

/// One versioned migration file, `NNNN_name.sql`.
public struct PostgresMigration: Sendable, Equatable {
    public var version: String
    public var name: String
    public var sql: String

    public init(version: String, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Reads every `NNNN_name.sql` in `directory`, ordered by version.
    public static func load(from directory: URL) throws -> [PostgresMigration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        var migrations: [PostgresMigration] = []
        for file in files where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"),
                  !stem[..<underscore].isEmpty, stem[..<underscore].allSatisfy(\.isNumber)
            else {
                throw PostgresError(.client, message: "migration file \(file) is not named NNNN_name.sql")
            }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            migrations.append(PostgresMigration(
                version: String(stem[..<underscore]), name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw PostgresError(.client, message: "two migrations share version \(next.version)")
        }
        return migrations
    }
}

/// Applies migrations in order, each in its own transaction, under an advisory lock so that
/// several instances starting together apply each migration exactly once. Applied versions
/// are recorded with a checksum in `schema_migrations`; an applied file that was edited
/// afterwards stops the run instead of being silently skipped.
public struct PostgresMigrator: Sendable {
    /// Any fixed number; all instances must agree on it.
    static let advisoryLockKey: Int64 = 0x6368_6972_705f_6d67

    public init() {}

    /// Returns the versions applied by this run.
    @discardableResult
    public func migrate(_ migrations: [PostgresMigration], in session: PostgresSession) async throws -> [String] {
        try await session.execute(Statements.lock)
        do {
            let applied = try await apply(migrations, in: session)
            try await session.execute(Statements.unlock)
            return applied
        } catch {
            // The session's reset releases the lock; rolling back first keeps the error the
            // migration's own.
            await session.rollBackIfNeeded()
            throw error
        }
    }

    private func apply(_ migrations: [PostgresMigration], in session: PostgresSession) async throws -> [String] {
        try await createHistoryTable(in: session)
        var applied: [String] = []
        for migration in migrations {
            let recorded = try await session.execute(Statements.isUnchanged(migration))
            if let unchanged = recorded {
                guard unchanged else {
                    throw PostgresError(
                        .client, message: "migration \(migration.version)_\(migration.name) was edited after it was applied")
                }
                continue
            }
            do {
                try await session.unsafeExecuteScript("begin")
                // Recorded first: the migration may switch roles (`set local role`) for the
                // rest of its transaction.
                try await session.execute(Statements.record(migration))
                try await session.unsafeExecuteScript(migration.sql)
                try await session.unsafeExecuteScript("commit")
            } catch var error as PostgresError {
                await session.rollBackIfNeeded()
                error.message = "migration \(migration.version)_\(migration.name) failed: \(error.message)"
                throw error
            }
            applied.append(migration.version)
        }
        return applied
    }

    private func createHistoryTable(in session: PostgresSession) async throws {
        try await session.unsafeExecuteScript("""
            create table if not exists schema_migrations (
                version text primary key,
                name text not null,
                checksum text not null,
                applied_at timestamptz not null default now()
            );
            alter table schema_migrations enable row level security;
            alter table schema_migrations force row level security;
            do $$
            begin
                if not exists (select from pg_policies
                               where tablename = 'schema_migrations' and schemaname = current_schema()) then
                    create policy "the migrating role manages schema history" on schema_migrations
                        to current_user using (true) with check (true);
                end if;
            end $$;
            """)
    }

    private enum Statements {
        static let lock: PostgresQuery = "select pg_advisory_lock(\(PostgresMigrator.advisoryLockKey))"
        static let unlock: PostgresQuery = "select pg_advisory_unlock(\(PostgresMigrator.advisoryLockKey))"

        /// Whether an applied migration's file is as it was; nil when it was never applied.
        static func isUnchanged(_ migration: PostgresMigration) -> PostgresRead<Bool?> {
            PostgresQuery("select checksum = md5(\(migration.sql)) from schema_migrations where version = \(migration.version)")
                .firstRow { try $0.decode(Bool.self, at: 0) }
        }

        static func record(_ migration: PostgresMigration) -> PostgresQuery {
            """
            insert into schema_migrations (version, name, checksum)
            values (\(migration.version), \(migration.name), md5(\(migration.sql)))
            """
        }
    }
}
