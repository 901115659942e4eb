/// A five-character SQLSTATE code, with the codes the application branches on named.
/// https://www.postgresql.org/docs/current/errcodes-appendix.html
public struct SQLState: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The first two characters: errors of one class share them.
    public var `class`: Class { Class(rawValue: String(rawValue.prefix(2))) }
    public var description: String { rawValue }

    public struct Class: Hashable, Sendable, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let connectionException = Class(rawValue: "08")
        public static let dataException = Class(rawValue: "22")
        public static let integrityConstraintViolation = Class(rawValue: "23")
        public static let invalidTransactionState = Class(rawValue: "25")
        public static let insufficientPrivilege = Class(rawValue: "42")
        public static let transactionRollback = Class(rawValue: "40")
        public static let operatorIntervention = Class(rawValue: "57")
    }

    public static let successfulCompletion = SQLState("00000")
    public static let connectionFailure = SQLState("08006")
    public static let invalidTextRepresentation = SQLState("22P02")
    public static let stringDataRightTruncation = SQLState("22001")
    public static let numericValueOutOfRange = SQLState("22003")
    public static let invalidDatetimeFormat = SQLState("22007")
    public static let datetimeFieldOverflow = SQLState("22008")
    public static let notNullViolation = SQLState("23502")
    public static let foreignKeyViolation = SQLState("23503")
    public static let uniqueViolation = SQLState("23505")
    public static let checkViolation = SQLState("23514")
    public static let exclusionViolation = SQLState("23P01")
    public static let inFailedTransaction = SQLState("25P02")
    public static let readOnlySQLTransaction = SQLState("25006")
    public static let serializationFailure = SQLState("40001")
    public static let deadlockDetected = SQLState("40P01")
    public static let insufficientPrivilege = SQLState("42501")
    public static let syntaxError = SQLState("42601")
    public static let undefinedTable = SQLState("42P01")
    public static let undefinedColumn = SQLState("42703")
    public static let undefinedFunction = SQLState("42883")
    public static let queryCanceled = SQLState("57014")
    public static let adminShutdown = SQLState("57P01")
    public static let crashShutdown = SQLState("57P02")
    public static let cannotConnectNow = SQLState("57P03")
    public static let idleSessionTimeout = SQLState("57P05")
    public static let lockNotAvailable = SQLState("55P03")
    public static let raiseException = SQLState("P0001")
}
