/// An error from the database layer. `description` is safe to log; none of it is meant for
/// a client, which should only ever see a status and a stable code chosen by the caller.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server answered the statement with an error (see `sqlState`).
        case server
        /// Connecting failed, or the connection broke while in use.
        case connection
        /// No connection could be leased before the pool's wait timeout.
        case poolTimeout
        /// The pool has been shut down.
        case poolClosed
        /// A value could not be decoded as the requested Swift type.
        case decoding
        /// A row was asked for that the statement did not return.
        case missingRow
        /// The client library misbehaved or was misused (a bug, not bad data).
        case client
        /// The connection broke during a write transaction that certainly did not commit (the
        /// server says it aborted, or `COMMIT` was never sent): it may simply be run again.
        case lostBeforeCommit
        /// The connection broke after `COMMIT` was sent, and the server says the transaction
        /// committed: it took effect, but its results were lost with the connection.
        case committedUnanswered
        /// The connection broke after `COMMIT` was sent, and whether the transaction committed
        /// could not be learned (the database is down, or the transaction's id never arrived).
        case outcomeUnknown
    }

    public var kind: Kind
    public var sqlState: SQLState?
    public var message: String
    public var detail: String?
    public var constraint: String?
    public var table: String?
    public var column: String?

    public init(
        _ kind: Kind, sqlState: SQLState? = nil, message: String, detail: String? = nil,
        constraint: String? = nil, table: String? = nil, column: String? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
        self.table = table
        self.column = column
    }

    /// True when the whole transaction may simply be run again (serialization failure, deadlock).
    public var isTransient: Bool {
        sqlState == .serializationFailure || sqlState == .deadlockDetected
    }

    /// True when the connection that produced the error can no longer be used.
    public var isConnectionLost: Bool {
        kind == .connection || kind == .lostBeforeCommit || sqlState?.class == .connectionException
            || sqlState == .adminShutdown || sqlState == .crashShutdown
            || sqlState == .cannotConnectNow || sqlState == .idleSessionTimeout
    }

    public var description: String {
        var text = "PostgresError.\(kind)"
        if let sqlState { text += " [\(sqlState.rawValue)]" }
        text += ": \(message)"
        if let constraint { text += " (constraint \(constraint))" }
        return text
    }
}
