import CLibPQ
import Glibc
import Synchronization

/// One libpq connection. It owns its `PGconn` and finishes it exactly once, also when
/// connecting fails. Statements are prepared once per connection and reused by name, unless
/// the connection goes through a transaction pooler (`reusesStatements`).
///
/// Only the pool makes connections, and only a lease reaches one: the pool's own
/// transactions, or a `PostgresSession`. A connection serves one caller at a time; every
/// round trip asserts that (`exclusively`), which is the synchronization behind
/// `@unchecked Sendable`.
final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer
    /// SQL text → name of the statement prepared for it on this connection.
    var preparedStatements: [StatementKey: String] = [:]
    /// Whether every transaction runs on the same server process, so that a statement prepared
    /// once can be executed by name from then on. Behind a transaction pooler (PgBouncer and its
    /// kind) each transaction gets whichever server connection is free: a name prepared on one
    /// may be missing on the next, or name another statement there. Statements then run
    /// unnamed, parsed with their parameters in the same round trip.
    let reusesStatements: Bool
    /// Set when the protocol state is unknown (a send or read failed half-way).
    var isBroken = false
    /// The parameters of the statement being sent, each ended by a NUL; kept between
    /// statements so that sending one does not allocate.
    var parameterText: [UInt8] = []
    /// Set while a round trip is in progress.
    private let busy = Atomic<Bool>(false)
    /// Beyond this many distinct statements, new ones run unnamed instead of growing the cache.
    static let preparedStatementLimit = 512

    /// Connects, blocking until the server answers: call it on a thread made for blocking.
    init(configuration: PostgresConfiguration) throws {
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
        guard let login = Self.login(of: connection) else {
            let message = String(cString: PQerrorMessage(connection)).trimmed
            PQfinish(connection)
            throw PostgresError(.connection, message: "cannot read the server's process id and login role: \(message)")
        }
        // Every policy is void for such a login: one `set_config('role', 'none', …)` would
        // undo the request role a transaction switches to.
        if login.bypassesRowSecurity && !configuration.allowsRowSecurityBypass {
            PQfinish(connection)
            throw PostgresError(.connection, message: "the database login \(login.role) is a superuser or has BYPASSRLS, "
                + "so row-level security would not hold: connect as a role without either (the migrations create "
                + "chirp_service), or allow it explicitly (CHIRP_ALLOW_BYPASSRLS=1)")
        }
        // A pooler answers the startup itself, with a cancel key of its own: the process that
        // key names is not the one that runs the statements.
        reusesStatements = login.serverProcess == PQbackendPID(connection)
        handle = connection
        // Notices (and a terminated backend's farewell) would otherwise go to stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // Sends never block; an event loop waits for the socket instead (`PostgresConnection+EventLoop`).
        PQsetnonblocking(handle, 1)
    }

    deinit { PQfinish(handle) }

    /// The server process that runs this connection's statements, the login role, and whether
    /// that role bypasses row-level security: one blocking round trip (the connection is still
    /// in blocking mode).
    private static func login(of connection: OpaquePointer) -> (serverProcess: Int32, role: String, bypassesRowSecurity: Bool)? {
        let sql = "select pg_backend_pid(), rolname, rolsuper or rolbypassrls from pg_roles where rolname = session_user"
        guard let result = PQexec(connection, sql) else { return nil }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1,
              let process = PQgetvalue(result, 0, 0).flatMap({ Int32(String(cString: $0)) }),
              let role = PQgetvalue(result, 0, 1).map({ String(cString: $0) }),
              let bypasses = PQgetvalue(result, 0, 2).map({ String(cString: $0) })
        else { return nil }
        return (process, role, bypasses == "t")
    }

    /// The server process serving this connection.
    var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs `body` as the connection's only user: a second caller at the same time is a bug in
    /// the caller (the pool leases a connection to one at a time), and stops the program here
    /// rather than interleaving two conversations on one socket.
    func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        precondition(!busy.exchange(true, ordering: .acquiring), "a database connection was used by two callers at once")
        defer { busy.store(false, ordering: .releasing) }
        return try await body()
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
