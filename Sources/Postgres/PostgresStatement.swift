/// A statement and how its result is read. Running several at once returns their outputs as a
/// tuple, in order, so each result has a name at the call site instead of an index:
///
///     let (posts, authorExists) = try await pool.execute(
///         as: identity, readOnly: true, PostQueries.page(…), UserQueries.exists(…))
///
/// A bare `PostgresQuery` is a statement whose output is its `PostgresResult`.
public protocol PostgresStatement {
    associatedtype Output
    var query: PostgresQuery { get }
    func read(_ result: PostgresResult) throws -> Output
}

extension PostgresQuery: PostgresStatement {
    public var query: PostgresQuery { self }
    public func read(_ result: PostgresResult) -> PostgresResult { result }
}

/// A query paired with the reader of its result (see `PostgresQuery.rows(_:)` and its kin).
public struct PostgresRead<Output>: PostgresStatement, Sendable {
    public let query: PostgresQuery
    private let reader: @Sendable (PostgresResult) throws -> Output

    public init(_ query: PostgresQuery, reader: @escaping @Sendable (PostgresResult) throws -> Output) {
        self.query = query
        self.reader = reader
    }

    public func read(_ result: PostgresResult) throws -> Output {
        try reader(result)
    }
}

extension PostgresQuery {
    /// Every row, each read by `row`.
    public func rows<Row>(_ row: @escaping @Sendable (PostgresRow) throws -> Row) -> PostgresRead<[Row]> {
        PostgresRead(self) { result in try result.rows.map(row) }
    }

    /// The first row read by `row`, or nil when there is none.
    public func firstRow<Row>(_ row: @escaping @Sendable (PostgresRow) throws -> Row) -> PostgresRead<Row?> {
        PostgresRead(self) { result in try result.first.map(row) }
    }

    /// The row of a statement that always returns one (`select exists (…)`, `select count(*)`);
    /// none is a `.missingRow` error.
    public func onlyRow<Row>(_ row: @escaping @Sendable (PostgresRow) throws -> Row) -> PostgresRead<Row> {
        PostgresRead(self) { result in try row(result.row(0)) }
    }

    /// The one value of a statement that always returns one row of one column.
    public func value<Value: PostgresDecodable>(_: Value.Type) -> PostgresRead<Value> {
        onlyRow { row in try row.decode(Value.self, at: 0) }
    }

    /// How many rows an INSERT, UPDATE or DELETE changed.
    public var affectedRows: PostgresRead<Int> {
        PostgresRead(self) { result in result.affectedRows }
    }
}

/// Gathers the queries of statements given as a parameter pack, and reads their results back
/// into a tuple in the same order.
enum PostgresStatements {
    static func queries<each Statement: PostgresStatement>(_ statements: repeat each Statement) -> [PostgresQuery] {
        var queries: [PostgresQuery] = []
        for statement in repeat each statements { queries.append(statement.query) }
        return queries
    }

    static func read<each Statement: PostgresStatement>(
        _ results: [PostgresResult], _ statements: repeat each Statement
    ) throws -> (repeat (each Statement).Output) {
        var next = results.makeIterator()
        return (repeat try (each statements).read(result(from: &next)))
    }

    /// The result of a one-statement pipeline.
    static func only(_ results: [PostgresResult]) throws -> PostgresResult {
        var next = results.makeIterator()
        return try result(from: &next)
    }

    private static func result(from results: inout IndexingIterator<[PostgresResult]>) throws -> PostgresResult {
        guard let result = results.next() else {
            throw PostgresError(.client, message: "the pipeline returned fewer results than it had statements")
        }
        return result
    }
}
