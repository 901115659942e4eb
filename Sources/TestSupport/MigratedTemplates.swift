/// One migrated database per cluster, made on first use, that `TestDatabase.migrated` copies
/// (`create database … template`). Hundreds of tests start at once, and each running every
/// migration kept a two-core cluster too busy to accept connections in time; a copy is a file
/// copy. Nothing connects to a template after it is made, as copying requires.
actor MigratedTemplates {
    static let shared = MigratedTemplates()
    private var templates: [String: Task<String, Error>] = [:]

    /// The template's name in `cluster` (the main test cluster when nil).
    func name(in cluster: String?) async throws -> String {
        let key = cluster ?? ""
        if let made = templates[key] { return try await made.value }
        let making = Task { try await Self.make(in: cluster) }
        templates[key] = making
        return try await making.value
    }

    private static func make(in cluster: String?) async throws -> String {
        let database = try await TestDatabase.migratedInPlace(prefix: "chirp_template", cluster: cluster)
        database.adminPool.close()
        return database.name
    }
}
