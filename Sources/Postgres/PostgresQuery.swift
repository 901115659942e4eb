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

    /// Collects the text as bytes and makes one `String` at the end: a statement is built for
    /// every request, and appending to a `String` piece by piece cost several times more.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text: [UInt8]
        var bindings: [String?]

        public init(literalCapacity: Int, interpolationCount: Int) {
            text = []
            text.reserveCapacity(literalCapacity + interpolationCount * 3)
            bindings = []
            bindings.reserveCapacity(interpolationCount)
        }

        var sql: String { String(decoding: text, as: UTF8.self) }

        public mutating func appendLiteral(_ literal: String) {
            text.append(contentsOf: literal.utf8)
        }

        /// Binds a value as the next `$n` parameter.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            bindings.append(value.postgresText)
            appendPlaceholder()
        }

        /// Binds an optional value; `nil` becomes NULL.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            bindings.append(value?.postgresText)
            appendPlaceholder()
        }

        /// `$n` for the binding just added, digit by digit, rather than through a `String` made
        /// for each placeholder of each statement.
        private mutating func appendPlaceholder() {
            text.append(UInt8(ascii: "$"))
            let number = bindings.count
            var divisor = 1
            while divisor * 10 <= number { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(number / divisor % 10))
                divisor /= 10
            }
        }

        /// Splices SQL text verbatim. Only for text the program itself chose.
        public mutating func appendInterpolation(unescaped sql: String) {
            text.append(contentsOf: sql.utf8)
        }
    }
}
