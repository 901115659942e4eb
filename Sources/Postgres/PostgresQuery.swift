/// A statement and its parameters. String interpolation binds every interpolated value as a
/// `$n` parameter, so a value can never become SQL text:
///
///     let query: PostgresQuery = "select id from users where username = \(name)"
///     // sql: "select id from users where username = $1", bindings: [name]
///
/// Text that must be spliced in as SQL (an identifier chosen by the code, never by a client)
/// goes through the deliberately loud `\(unescaped: …)`.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation {
    public var sql: String
    /// Parameters in text format; `nil` is SQL NULL.
    public var bindings: [String?]

    public init(sql: String, bindings: [String?] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(sql: stringInterpolation.sql, bindings: stringInterpolation.bindings)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql: String
        var bindings: [String?]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            bindings = []
            bindings.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// Binds a value as the next `$n` parameter.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            bindings.append(value.postgresText)
            sql += "$\(bindings.count)"
        }

        /// Binds an optional value; `nil` becomes NULL.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            bindings.append(value?.postgresText)
            sql += "$\(bindings.count)"
        }

        /// Splices SQL text verbatim. Only for text the program itself chose.
        public mutating func appendInterpolation(unescaped text: String) {
            sql += text
        }
    }
}
