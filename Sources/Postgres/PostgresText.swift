/// A text column's value left where libpq put it (a text value's binary form is its bytes):
/// the bytes stay in their result, which this keeps alive, until they are written out. A page
/// of rows then makes no `String` for each body and name only to copy it into a response.
///
/// The bytes are UTF-8: the connection asks for UTF-8 (`client_encoding`) and refuses a
/// database in any other encoding (`PostgresConnection.init`), and PostgreSQL validates
/// every text value stored in a UTF-8 database.
///
/// A `PGresult` is immutable until it is cleared, which happens only when the last reference
/// to its `PostgresResult` goes: hence `@unchecked Sendable`.
public struct PostgresText: @unchecked Sendable, CustomStringConvertible {
    private let owner: PostgresResult
    private let start: UnsafeRawPointer?
    public let count: Int

    init(_ bytes: UnsafeRawBufferPointer, in owner: PostgresResult) {
        self.owner = owner
        start = bytes.baseAddress
        count = bytes.count
    }

    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(owner) {
            try body(UnsafeBufferPointer(start: start?.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }

    public var string: String { withUTF8 { String(decoding: $0, as: UTF8.self) } }

    public var description: String { string }
}

extension PostgresText: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> PostgresText {
        switch type {
        case .text, .varchar, .bpchar, .name, .unknown: return PostgresText(value, in: result)
        default: throw mismatch(type)
        }
    }

    /// Text is read in place, so only from a result.
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresText {
        throw PostgresError(.decoding, message: "PostgresText is read only in place, from a result")
    }
}
