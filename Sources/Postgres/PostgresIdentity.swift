/// Who a transaction runs as: a database role to switch to and session settings that the
/// row-level security policies read (for example `app.user_id`). Both are set with
/// `set_config(…, true)` inside the transaction, so they end with it and can never leak to
/// the next user of a pooled connection.
public struct PostgresIdentity: Sendable, Hashable {
    public var role: String
    public var settings: [Setting]

    public struct Setting: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(role: String, settings: [Setting] = []) {
        self.role = role
        self.settings = settings
    }

    /// This identity with `extra` settings too: settings a transaction needs (a timeout, a
    /// plan cache mode) travel in the identity's statement rather than a statement of their own.
    public func adding(_ extra: [Setting]) -> PostgresIdentity {
        PostgresIdentity(role: role, settings: settings + extra)
    }

    /// One statement that applies the identity; every value is a bound parameter.
    var statement: PostgresQuery {
        var sql = PostgresQuery.StringInterpolation(
            literalCapacity: 48 + settings.count * 24, interpolationCount: 1 + settings.count * 2)
        sql.appendLiteral("select set_config('role', ")
        sql.appendInterpolation(role)
        sql.appendLiteral(", true)")
        for setting in settings {
            sql.appendLiteral(", set_config(")
            sql.appendInterpolation(setting.name)
            sql.appendLiteral(", ")
            sql.appendInterpolation(setting.value)
            sql.appendLiteral(", true)")
        }
        return PostgresQuery(stringInterpolation: sql)
    }
}
