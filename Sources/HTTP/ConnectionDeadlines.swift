#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// One open connection, as the deadline watchdog sees it. Kept in libmicrohttpd's per-connection
/// pointer, so a request touches only its own atomics, never a shared lock.
final class ConnectionState: Sendable {
    let socket: Int32
    /// The client's IP address as text.
    let address: String
    /// Monotonic nanoseconds since when the connection has waited for its current request to
    /// arrive; 0 while a handler runs.
    let waitingSince = Atomic<Int64>(0)

    init(socket: Int32, address: String) {
        self.socket = socket
        self.address = address
        waitingSince.store(Monotonic.nanoseconds(), ordering: .relaxed)
    }

    func startWaiting() {
        waitingSince.store(Monotonic.nanoseconds(), ordering: .relaxed)
    }

    func stopWaiting() {
        waitingSince.store(0, ordering: .relaxed)
    }
}

/// The whole-request deadline. libmicrohttpd's connection timeout only measures silence, so a
/// client sending one byte a second never trips it. Each connection records since when it has
/// been waiting for the current request (from its start or the previous response, restarted when
/// the request line is in; paused while the handler runs), and `cutOverdue` shuts down the socket
/// of any that waits too long. libmicrohttpd then sees the connection end and closes it itself.
///
/// It also counts admitted connections, in all and per client address, for the connection
/// limits: with one libmicrohttpd daemon per event loop, no single daemon sees them all.
final class ConnectionDeadlines: Sendable {
    private struct Open {
        var states: [ObjectIdentifier: ConnectionState] = [:]
        /// Admitted and not yet closed, including those on their way to a daemon.
        var admitted = 0
        var perAddress: [String: Int] = [:]
    }

    private let open = Mutex(Open())

    /// Counts a new connection from `address` in, unless that would pass `limit` in all or
    /// `perAddressLimit` from one address (0: no such limit).
    func admit(_ address: String, limit: Int, perAddressLimit: Int) -> Bool {
        open.withLock { open in
            let fromAddress = open.perAddress[address, default: 0]
            guard open.admitted < limit, perAddressLimit == 0 || fromAddress < perAddressLimit else { return false }
            open.admitted += 1
            open.perAddress[address] = fromAddress + 1
            return true
        }
    }

    /// An admitted connection that never opened (its daemon refused it).
    func abandoned(_ address: String) {
        open.withLock { Self.release(address, in: &$0) }
    }

    /// An admitted connection has opened on its daemon.
    func opened(socket: Int32, address: String) -> ConnectionState {
        let state = ConnectionState(socket: socket, address: address)
        open.withLock { $0.states[ObjectIdentifier(state)] = state }
        return state
    }

    /// libmicrohttpd reports a connection closed before it closes the socket, and `cutOverdue`
    /// holds the same lock while it shuts sockets down, so a socket number reused by a newer
    /// connection is never touched.
    func closed(_ state: ConnectionState) {
        open.withLock { open in
            guard open.states.removeValue(forKey: ObjectIdentifier(state)) != nil else { return }
            Self.release(state.address, in: &open)
        }
    }

    private static func release(_ address: String, in open: inout Open) {
        open.admitted -= 1
        let remaining = open.perAddress[address, default: 1] - 1
        open.perAddress[address] = remaining > 0 ? remaining : nil
    }

    var count: Int { open.withLock { $0.states.count } }

    /// Shuts down the sockets of connections that have waited longer than `limit`; returns how
    /// many.
    func cutOverdue(limit: Duration) -> Int {
        let now = Monotonic.nanoseconds()
        let (seconds, attoseconds) = limit.components
        let limitNanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return open.withLock { open in
            var cut = 0
            for state in open.states.values {
                let since = state.waitingSince.load(ordering: .relaxed)
                guard since != 0, now - since > limitNanoseconds else { continue }
                // Only if the connection did not move on meanwhile.
                guard state.waitingSince.compareExchange(expected: since, desired: 0, ordering: .relaxed).exchanged
                else { continue }
                shutdown(state.socket, Int32(SHUT_RDWR))
                cut += 1
            }
            return cut
        }
    }
}

enum Monotonic {
    /// CLOCK_MONOTONIC in nanoseconds; never 0.
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) + 1
    }
}
