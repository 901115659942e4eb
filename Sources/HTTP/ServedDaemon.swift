#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import EventLoops
import Synchronization

/// One libmicrohttpd daemon, in its external-epoll mode and without a listening socket of its
/// own, on one event loop: the `Listener` hands it connections. It is what the C callbacks reach
/// through their context pointer (retained from `start` until `stop`).
///
/// It runs the daemon as libmicrohttpd's documentation asks: `MHD_run` whenever the daemon's
/// epoll descriptor is readable, and again when `MHD_get_timeout` says so. The timeout is 0 when
/// the daemon has work it already knows of (data read but not parsed yet, a resumed connection),
/// and otherwise the next connection timeout. Apart from `connections`, its state is touched
/// only on its loop, hence `@unchecked Sendable`.
final class ServedDaemon: @unchecked Sendable {
    let core: ServerCore
    let loop: EventLoop
    /// Connections handed to this daemon and not closed yet: the listener picks the daemon
    /// with the fewest.
    private let handed = Atomic<Int>(0)
    private var daemon: OpaquePointer?
    private var descriptor: Int32 = -1
    /// Held from `start` until `stop`, for the callbacks.
    private var context: Unmanaged<ServedDaemon>?
    /// The monotonic time at which a run is already scheduled, if one is.
    private var scheduled: ContinuousClock.Instant?
    private var runQueued = false
    /// Connections suspended while their handler runs, by address. `stop` resumes them first:
    /// libmicrohttpd aborts the process if it is stopped with a connection still suspended.
    private var suspended: Set<UInt> = []

    private init(core: ServerCore, loop: EventLoop) {
        self.core = core
        self.loop = loop
    }

    /// Starts a daemon and runs it on `loop`.
    static func start(_ configuration: HTTPServerConfiguration, core: ServerCore, loop: EventLoop) throws -> ServedDaemon {
        let served = ServedDaemon(core: core, loop: loop)
        let context = Unmanaged.passRetained(served)
        guard let daemon = startDaemon(configuration, context: context.toOpaque()) else {
            context.release()
            throw HTTPServerError.startFailed(host: configuration.host, port: configuration.port)
        }
        // Set before the loop first runs the daemon, so no callback sees them unset.
        served.daemon = daemon
        served.context = context
        let watching: Bool = loop.executeAndWait { served.watch() }
        guard watching else {
            served.daemon = nil
            MHD_stop_daemon(daemon)
            context.release()
            throw HTTPServerError.startFailed(host: configuration.host, port: configuration.port)
        }
        return served
    }

    var connections: Int { handed.load(ordering: .relaxed) }

    /// Takes over an accepted connection; libmicrohttpd owns (and closes) the socket from here.
    func adopt(_ client: Int32, address: sockaddr_storage, length: socklen_t, clientAddress: String) {
        handed.add(1, ordering: .relaxed)
        loop.execute { [self] in
            var address = address
            let added = daemon.map { daemon in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, client, $0, length) }
                }
            }
            guard added == .YES else {
                // A stopped daemon, or one that refused the socket (and closed it).
                if daemon == nil { close(client) }
                handed.subtract(1, ordering: .relaxed)
                core.deadlines.abandoned(clientAddress)
                return
            }
            runSoon()
        }
    }

    /// A connection of this daemon closed.
    func dropped() {
        handed.subtract(1, ordering: .relaxed)
    }

    /// On the loop.
    private func watch() -> Bool {
        guard let daemon else { return false }
        descriptor = chirp_mhd_epoll_fd(daemon)
        guard descriptor >= 0 else { return false }
        do {
            try loop.watch(descriptor, events: Readiness.readable.epollEvents) { [unowned self] _ in run() }
        } catch {
            return false
        }
        run()
        return true
    }

    /// Lets the daemon process what is ready, then arranges its next run. On the loop.
    func run() {
        guard let daemon else { return }
        _ = MHD_run(daemon)
        var milliseconds: UInt64 = 0
        // No timeout: nothing to do until the descriptor is readable.
        guard MHD_get_timeout(daemon, &milliseconds) == .YES else { return }
        if milliseconds == 0 {
            runSoon()
            return
        }
        let due = ContinuousClock.now + .milliseconds(min(milliseconds, 60_000))
        if let scheduled, scheduled <= due { return }
        scheduled = due
        loop.schedule(after: ContinuousClock.now.duration(to: due)) { [self] in
            guard scheduled == due else { return }  // superseded by an earlier run
            scheduled = nil
            run()
        }
    }

    /// Runs the daemon once the loop is done with what it is doing now; many calls meanwhile
    /// make one run. In this mode nothing else wakes the daemon for a resumed connection.
    func runSoon() {
        guard !runQueued else { return }
        runQueued = true
        loop.execute { [self] in
            runQueued = false
            run()
        }
    }

    /// Suspends a connection whose handler is about to run; returns what `resume` takes. On the
    /// loop, inside the access handler.
    func suspend(_ connection: OpaquePointer) -> UInt {
        MHD_suspend_connection(connection)
        let address = UInt(bitPattern: connection)
        suspended.insert(address)
        return address
    }

    /// The handler has answered: the connection goes back to the daemon, unless `stop` already
    /// closed it. On the loop.
    func resume(_ address: UInt) {
        guard suspended.remove(address) != nil, let connection = OpaquePointer(bitPattern: address) else { return }
        MHD_resume_connection(connection)
        runSoon()
    }

    /// Closes every connection and the daemon. Connections whose handler still runs are resumed
    /// unanswered and closed with the rest; the handler's answer later finds no connection.
    func stop() {
        loop.executeAndWait { [self] in
            guard let daemon else { return }
            self.daemon = nil
            loop.unwatch(descriptor)
            for address in suspended {
                if let connection = OpaquePointer(bitPattern: address) { MHD_resume_connection(connection) }
            }
            suspended.removeAll()
            // A resumed connection leaves the daemon's suspended list only when the daemon runs.
            _ = MHD_run(daemon)
            MHD_stop_daemon(daemon)
        }
        context?.release()
        context = nil
    }

    private static func startDaemon(_ configuration: HTTPServerConfiguration, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        // No internal thread: the event loop calls MHD_run. No listening socket: the listener
        // hands connections over. Suspend/resume lets a connection wait for its handler.
        var flags = MHD_USE_EPOLL.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, configuration.host, &ipv6) == 1 { flags |= MHD_USE_IPv6.rawValue }

        var settings = chirp_mhd_settings()
        settings.flags = flags
        // The listener enforces the limits, which span every daemon; libmicrohttpd's own sits
        // above them, only as a backstop.
        settings.connection_limit = UInt32(configuration.connectionLimit + 1)
        let timeout = configuration.connectionTimeout.components
        settings.connection_timeout = UInt32(max(1, timeout.seconds + (timeout.attoseconds > 0 ? 1 : 0)))
        settings.connection_memory_limit = configuration.connectionMemoryLimit
        settings.strict_for_client = 1
        return chirp_mhd_start(
            &settings,
            MHDCallbacks.access, context,
            MHDCallbacks.completed, context,
            MHDCallbacks.connectionEvent, context,
            MHDCallbacks.uriLog, context,
            MHDCallbacks.log, context)
    }
}
