/// Who a transaction runs as: a database role to switch to and session settings that the
/// row-level security policies read (for example `app.user_id`). Both are set with
/// `set_config(…, true)` inside the transaction, so they end with it and can never leak to
/// the next user of a pooled connection.
public struct PostgresIdentity: Sendable, Hashable {
    public var role: String
    public var settings: [Setting]
    /// Functions called right after the identity is applied, in a statement of their own
    /// (its names are resolved as the request role): a check that fails the transaction
    /// before any of its statements runs.
    public var checks: [Check] = []

    public struct Setting: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `function(argument)`, the argument bound; the function is the program's own name. A check
    /// that `choosesRole` returns the role the transaction continues as, and the statement that
    /// runs it switches to that role (one the login can become).
    public struct Check: Sendable, Hashable {
        public var function: String
        public var argument: String?
        public var choosesRole: Bool
        public init(function: String, argument: String?, choosesRole: Bool = false) {
            self.function = function
            self.argument = argument
            self.choosesRole = choosesRole
        }
    }

    public init(role: String, settings: [Setting] = []) {
        self.role = role
        self.settings = settings
    }

    /// This identity with `extra` settings too: settings a transaction needs (a timeout, a
    /// plan cache mode) travel in the identity's statement rather than a statement of their own.
    public func adding(_ extra: [Setting]) -> PostgresIdentity {
        var identity = self
        identity.settings += extra
        return identity
    }

    /// This identity with `check` run before the transaction's statements.
    public func checking(_ check: Check) -> PostgresIdentity {
        var identity = self
        identity.checks.append(check)
        return identity
    }

    /// What a transaction runs before its statements: the identity's statement, then the
    /// checks' (one statement for all of them, as the request role: the login role may not
    /// even see the schema a check lives in).
    var prologue: [PostgresQuery] {
        guard !checks.isEmpty else { return [statement] }
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 8 + checks.count * 56, interpolationCount: checks.count)
        sql.appendLiteral("select ")
        for (index, check) in checks.enumerated() {
            sql.appendLiteral(index == 0 ? "" : ", ")
            if check.choosesRole { sql.appendLiteral("set_config('role', ") }
            sql.appendLiteral("\(check.function)(")
            sql.appendInterpolation(check.argument)
            sql.appendLiteral(check.choosesRole ? "), true)" : ")")
        }
        return [statement, PostgresQuery(stringInterpolation: sql)]
    }

    /// How many statements `prologue` holds, without building them.
    var prologueCount: Int { checks.isEmpty ? 1 : 2 }

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
