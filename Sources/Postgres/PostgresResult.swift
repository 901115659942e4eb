import CLibPQ

/// The rows of one statement. Owns its `PGresult` and clears it exactly once.
/// A `PGresult` is immutable once received, so reading it from several threads is safe:
/// hence `@unchecked Sendable`.
public final class PostgresResult: @unchecked Sendable {
    private let handle: OpaquePointer
    public let rowCount: Int
    public let columnCount: Int
    /// Rows affected by an INSERT/UPDATE/DELETE (0 when the statement reports none); read on
    /// demand, since most results are never asked.
    public var affectedRows: Int {
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    /// Whether values are in binary format, as every statement asks (libpq gives one format
    /// to all of a result's columns); a text result has no rows to decode.
    private let isBinary: Bool
    /// Each column's type, read once when there are several rows, whose every value asks for
    /// it; empty otherwise, and libpq is asked.
    private let columnTypes: [PostgresType]

    init(taking handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
        isBinary = columnCount > 0 && PQfformat(handle, 0) == 1
        columnTypes = rowCount > 1 ? (0..<columnCount).map { PostgresType(oid: PQftype(handle, Int32($0))) } : []
    }

    deinit { PQclear(handle) }

    public var rows: PostgresRows { PostgresRows(result: self) }
    public var first: PostgresRow? { rowCount > 0 ? PostgresRow(result: self, index: 0) : nil }
    public var isEmpty: Bool { rowCount == 0 }

    /// The row at `index`; past the last row a `.missingRow` error, at the access itself.
    public func row(_ index: Int) throws -> PostgresRow {
        guard index >= 0, index < rowCount else {
            throw PostgresError(.missingRow, message: "no row \(index) (the statement returned \(rowCount))")
        }
        return PostgresRow(result: self, index: index)
    }

    public func columnName(_ column: Int) -> String {
        String(cString: PQfname(handle, Int32(column)))
    }

    /// The index of a column by name, or nil.
    public func column(named name: String) -> Int? {
        (0..<columnCount).first { columnName($0) == name }
    }

    func type(ofColumn column: Int) -> PostgresType {
        column < columnTypes.count ? columnTypes[column] : PostgresType(oid: PQftype(handle, Int32(column)))
    }

    /// Decodes the value at `column`, then moves `column` to the next one.
    @inline(__always)
    func decode<Value: PostgresDecodable>(_: Value.Type, row: Int, advancing column: inout Int) throws -> Value {
        defer { column += 1 }
        return try decode(Value.self, row: row, column: column)
    }

    func decode<Value: PostgresDecodable>(_: Value.Type, row: Int, column: Int) throws -> Value {
        guard column >= 0, column < columnCount else {
            throw PostgresError(.decoding, message: "no column \(column) (result has \(columnCount))")
        }
        guard row >= 0, row < rowCount else {
            throw PostgresError(.decoding, message: "no row \(row) (result has \(rowCount))")
        }
        guard isBinary else {
            throw PostgresError(.decoding, message: "values in text format cannot be decoded")
        }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        // SQL NULL reads as an empty value, so only an empty one needs asking.
        guard length > 0 || PQgetisnull(handle, Int32(row), Int32(column)) == 0,
              let value = PQgetvalue(handle, Int32(row), Int32(column))
        else {
            return try Value.decodeNull()
        }
        let bytes = UnsafeRawBufferPointer(start: value, count: length)
        return try Value.decode(bytes, type: type(ofColumn: column), from: self)
    }
}

/// The rows of a result, in order. A sequence rather than an indexable collection: a row is
/// taken by position only through `PostgresResult.row(_:)`, which checks that it exists.
public struct PostgresRows: Sequence, Sendable {
    let result: PostgresResult

    public var count: Int { result.rowCount }
    public var underestimatedCount: Int { result.rowCount }

    public func makeIterator() -> Iterator {
        Iterator(result: result)
    }

    public struct Iterator: IteratorProtocol {
        let result: PostgresResult
        var index = 0

        public mutating func next() -> PostgresRow? {
            guard index < result.rowCount else { return nil }
            defer { index += 1 }
            return PostgresRow(result: result, index: index)
        }
    }
}

/// One row. Columns are read by position or name, as a typed value.
public struct PostgresRow: Sendable {
    let result: PostgresResult
    public let index: Int

    public func decode<Value: PostgresDecodable>(_ type: Value.Type, at column: Int) throws -> Value {
        try result.decode(type, row: index, column: column)
    }

    public func decode<Value: PostgresDecodable>(_ type: Value.Type, _ name: String) throws -> Value {
        guard let column = result.column(named: name) else {
            throw PostgresError(.decoding, message: "no column named \(name)")
        }
        return try result.decode(type, row: index, column: column)
    }

    /// Decodes consecutive columns as a tuple: `let (id, name) = try row.decode((PostgresUUID, String).self)`.
    public func decode<each Value: PostgresDecodable>(
        _ types: (repeat each Value).Type, startingAt first: Int = 0
    ) throws -> (repeat each Value) {
        // The column index goes in and out as an argument: a nested function capturing it
        // would make every access a dynamically checked one, per column of every row.
        var column = first
        return (repeat try result.decode((each Value).self, row: index, advancing: &column))
    }
}
