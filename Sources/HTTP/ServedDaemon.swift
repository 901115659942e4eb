#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import EventLoops

/// One libmicrohttpd daemon, in its external-epoll mode, on one event loop: what the C
/// callbacks reach through their context pointer (retained from `start` until `stop`).
///
/// It runs the daemon as libmicrohttpd's documentation asks: `MHD_run` whenever the daemon's
/// epoll descriptor is readable, and again when `MHD_get_timeout` says so. The timeout is 0 when
/// the daemon has work it already knows of (data read but not parsed yet, a resumed connection),
/// and otherwise the next connection timeout. Its mutable state is touched only on its loop,
/// hence `@unchecked Sendable`.
final class ServedDaemon: @unchecked Sendable {
    let core: ServerCore
    let loop: EventLoop
    /// The bound port.
    private(set) var port = 0
    private var daemon: OpaquePointer?
    /// Held from `start` until `stop`, for the callbacks.
    private var context: Unmanaged<ServedDaemon>?
    private var descriptor: Int32 = -1
    /// The monotonic time at which a run is already scheduled, if one is.
    private var scheduled: ContinuousClock.Instant?
    private var runQueued = false
    /// The listening socket, ours once quiesced.
    private var listener: Int32 = -1

    private init(core: ServerCore, loop: EventLoop) {
        self.core = core
        self.loop = loop
    }

    /// Binds a daemon on `port` and starts running it on `loop`.
    static func start(
        _ configuration: HTTPServerConfiguration, port: Int, sharingPort: Bool, core: ServerCore, loop: EventLoop
    ) throws -> ServedDaemon {
        let served = ServedDaemon(core: core, loop: loop)
        let context = Unmanaged.passRetained(served)
        let daemon: OpaquePointer?
        do {
            daemon = try startDaemon(configuration, port: port, sharingPort: sharingPort, context: context.toOpaque())
        } catch {
            context.release()
            throw error
        }
        guard let daemon else {
            context.release()
            throw HTTPServerError.startFailed(host: configuration.host, port: port)
        }
        // Set before the loop first runs the daemon, so no callback sees them unset.
        served.daemon = daemon
        served.port = Int(chirp_mhd_bind_port(daemon))
        served.context = context
        let watching: Bool = loop.executeAndWait { served.watch() }
        guard watching else {
            served.daemon = nil
            MHD_stop_daemon(daemon)
            context.release()
            throw HTTPServerError.startFailed(host: configuration.host, port: port)
        }
        return served
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

    /// Stops accepting; connections already open carry on.
    func quiesce() {
        listener = loop.executeAndWait { [self] in
            guard let daemon else { return -1 }
            return MHD_quiesce_daemon(daemon)
        }
    }

    /// Closes every connection and the daemon. A handler finishing later finds no connection.
    func stop() {
        loop.executeAndWait { [self] in
            guard let daemon else { return }
            self.daemon = nil
            loop.unwatch(descriptor)
            MHD_stop_daemon(daemon)
        }
        // The listening socket is ours to close after a quiesce, and only once the daemon is gone.
        if listener >= 0 { close(listener) }
        context?.release()
        context = nil
    }

    /// Whether the daemon still runs; a task about to resume a connection checks. On the loop.
    var isRunning: Bool { daemon != nil }

    private static func startDaemon(
        _ configuration: HTTPServerConfiguration, port: Int, sharingPort: Bool, context: UnsafeMutableRawPointer
    ) throws -> OpaquePointer? {
        // No internal thread: the event loop calls MHD_run. Suspend/resume lets a connection
        // wait for its handler.
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue

        var settings = chirp_mhd_settings()
        settings.port = UInt16(port)
        // The limits span every daemon, so the accept policy enforces them (`ConnectionDeadlines`).
        // libmicrohttpd's own limit sits above, only as a backstop: a daemon at its own limit
        // stops accepting, and connections queued to it would wait instead of being refused.
        settings.connection_limit = UInt32(configuration.connectionLimit + configuration.eventLoops + 1)
        let timeout = configuration.connectionTimeout.components
        settings.connection_timeout = UInt32(max(1, timeout.seconds + (timeout.attoseconds > 0 ? 1 : 0)))
        settings.connection_memory_limit = configuration.connectionMemoryLimit
        settings.listen_backlog = UInt32(configuration.listenBacklog)
        settings.strict_for_client = 1
        settings.reuse_port = sharingPort ? 1 : 0

        let start = { (address: UnsafePointer<sockaddr>) -> OpaquePointer? in
            settings.bind_address = address
            return chirp_mhd_start(
                &settings,
                MHDCallbacks.access, context,
                MHDCallbacks.completed, context,
                MHDCallbacks.connectionEvent, context,
                MHDCallbacks.uriLog, context,
                MHDCallbacks.log, context,
                MHDCallbacks.acceptPolicy, context)
        }

        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, configuration.host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = UInt16(port).bigEndian
            settings.flags = flags
            return withUnsafePointer(to: &ipv4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, start) }
        }
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, configuration.host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = UInt16(port).bigEndian
            settings.flags = flags | MHD_USE_IPv6.rawValue
            return withUnsafePointer(to: &ipv6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, start) }
        }
        throw HTTPServerError.invalidHost(configuration.host)
    }
}
