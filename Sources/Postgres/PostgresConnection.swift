import CLibPQ
import Glibc

/// One libpq connection. It owns its `PGconn` and finishes it exactly once, also when
/// connecting fails. Statements are prepared once per connection and reused by name.
///
/// A connection is used by one thread at a time: the pool leases it to exactly one caller
/// and takes it back before anyone else may use it. That is the synchronization behind
/// `@unchecked Sendable`.
public final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer
    /// SQL text → name of the statement prepared for it on this connection.
    var preparedStatements: [StatementKey: String] = [:]
    /// Set when the protocol state is unknown (a send or read failed half-way).
    var isBroken = false
    /// The parameters of the statement being sent, each ended by a NUL; kept between
    /// statements so that sending one does not allocate.
    var parameterText: [UInt8] = []
    /// Beyond this many distinct statements, new ones run unnamed instead of growing the cache.
    static let preparedStatementLimit = 512

    public init(configuration: PostgresConfiguration) throws {
        let keywords = configuration.parameters.map { strdup($0.0) }
        let values = configuration.parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection: OpaquePointer? = (keywords + [nil]).withUnsafeBufferPointer { keywordPointers in
            (values + [nil]).withUnsafeBufferPointer { valuePointers in
                keywordPointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { keys in
                    valuePointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { vals in
                        PQconnectdbParams(keys.baseAddress, vals.baseAddress, 0)
                    }
                }
            }
        }
        guard let connection else {
            throw PostgresError(.connection, message: "out of memory allocating a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmed
            PQfinish(connection)
            throw PostgresError(.connection, message: message)
        }
        // Text is read as UTF-8 in place (`PostgresText`); in a database of another encoding
        // (SQL_ASCII stores any bytes) it might not be.
        let encoding = PQparameterStatus(connection, "server_encoding").map { String(cString: $0) } ?? "unknown"
        guard encoding == "UTF8" else {
            PQfinish(connection)
            throw PostgresError(.connection, message: "the database's encoding is \(encoding); Chirp needs UTF8")
        }
        handle = connection
        // Notices (and a terminated backend's farewell) would otherwise go to stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // Sends never block; an event loop waits for the socket instead (`PostgresConnection+Async`).
        // Blocking callers are unaffected: libpq still waits in `PQgetResult` and `PQexec`.
        PQsetnonblocking(handle, 1)
    }

    deinit { PQfinish(handle) }

    /// The server process serving this connection.
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one statement.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresResult {
        let results = try pipeline([query])
        guard let result = results.first else {
            throw PostgresError(.client, message: "pipeline returned no result")
        }
        return result
    }

    @discardableResult
    /// Runs statements in one round trip (libpq pipeline mode) and returns their results in
    /// order. Without an explicit `BEGIN` they share one implicit transaction; if one fails,
    /// the rest are skipped and the first error is thrown.
    public func pipeline(_ queries: [PostgresQuery]) throws -> [PostgresResult] {
        let pending = try sendPipeline(queries)
        return try collect(pending)
    }

    /// Runs a script of several statements with the simple query protocol, without
    /// parameters. Only for SQL the program ships (migrations), never for values.
    public func unsafeExecuteScript(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw connectionError() }
        let owned = PostgresResult(taking: result)
        try check(result, owned: owned)
    }

    /// Whether the connection can be handed out: open, idle outside a transaction, and with
    /// no unread message waiting (a terminated backend or a restarting server sends a final
    /// error and closes the socket while the connection sits idle in the pool).
    var isHealthy: Bool {
        guard !isBroken, PQstatus(handle) == CONNECTION_OK,
              PQtransactionStatus(handle) == PQTRANS_IDLE,
              PQpipelineStatus(handle) == PQ_PIPELINE_OFF
        else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 0)
        if ready < 0 { return false }
        // Nothing is expected on an idle connection: input here is a terminated backend's
        // farewell or a server shutting down. Replacing the connection is always safe.
        return ready == 0
    }

    var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Whether a returning connection may go back to the pool: cheap, no system call.
    var isReusable: Bool {
        !isBroken && PQstatus(handle) == CONNECTION_OK
            && PQtransactionStatus(handle) == PQTRANS_IDLE
            && PQpipelineStatus(handle) == PQ_PIPELINE_OFF
    }

    func connectionError() -> PostgresError {
        let message = String(cString: PQerrorMessage(handle)).trimmed
        return PostgresError(.connection, message: message.isEmpty ? "connection lost" : message)
    }

    /// Turns an error result into a `PostgresError`, reading every field now, while the
    /// result is alive.
    func check(_ result: OpaquePointer, owned: PostgresResult) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            throw serverError(result)
        }
    }

    func serverError(_ result: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue,
                  let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C").map(SQLState.init(rawValue:))
        if sqlState == nil, PQstatus(handle) != CONNECTION_OK {
            return connectionError()
        }
        let message = field("M") ?? String(cString: PQresultErrorMessage(result)).trimmed
        return PostgresError(
            .server, sqlState: sqlState, message: message, detail: field("D"),
            constraint: field("n"), table: field("t"), column: field("c"))
    }
}
