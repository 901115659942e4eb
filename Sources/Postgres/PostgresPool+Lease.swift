import EventLoops

/// Leases: the only way to a connection.
extension PostgresPool {
    /// The loop the caller runs on, so that its sockets are waited on there; else the pool's.
    var currentLoop: EventLoop { EventLoop.current ?? eventLoop }

    /// Leases `count` connections at once, all or none, so two callers each holding one
    /// connection can never wait forever for each other's second. New connections are opened
    /// on a thread made for blocking. Without `checkingIdle`, idle connections are handed out
    /// without asking the kernel whether the server closed them meanwhile (see `retrying`).
    func lease(count: Int, on loop: EventLoop, checkingIdle: Bool = true) async throws -> [PostgresConnection] {
        precondition(count >= 1 && count <= poolConfiguration.maxConnections, "lease count out of range")
        var leased: [PostgresConnection] = []
        do {
            while leased.count < count {
                let (reused, toOpen) = try await reserve(count - leased.count, on: loop)
                leased += checkingIdle ? healthy(reused) : reused
                for opened in 0..<toOpen {
                    do {
                        leased.append(try await BlockingWork.run { try self.openConnection() })
                    } catch {
                        unreserve(toOpen - opened - 1)
                        throw error
                    }
                }
            }
        } catch {
            leased.forEach(release)
            throw error
        }
        return leased
    }

    /// Leases one connection as a session for the duration of `body`: for work that needs the
    /// same connection across statements and transactions (an advisory lock, session settings).
    /// The session is valid only inside `body`. Afterwards the connection is reset (`DISCARD
    /// ALL`) before it is pooled again, so nothing the session set outlives it.
    @discardableResult
    public func withSession<T>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        let loop = currentLoop
        let connection = try await lease(count: 1, on: loop)[0]
        let session = PostgresSession(connection: connection, loop: loop)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(session))
        } catch {
            outcome = .failure(error)
        }
        session.end()
        await connection.resetSession(on: loop)
        release(connection)
        return try outcome.get()
    }
}
