#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import EventLoops

/// The server's listening socket. It accepts on one event loop, refuses connections past the
/// limits, and hands each admitted one to the daemon with the fewest connections, on that
/// daemon's loop (`MHD_add_connection`). So connections spread evenly over the loops whatever
/// their addresses, and the limits are counted in one place.
final class Listener: Sendable {
    let socket: Int32
    let port: Int
    private let loop: EventLoop
    private let core: ServerCore
    private let daemons: [ServedDaemon]
    /// Connections from a trusted proxy whose PROXY header has not all arrived (on the loop).
    private let proxyHeaders: ProxyHeaderWait

    /// Binds and listens; accepting starts with `start`.
    init(_ configuration: HTTPServerConfiguration, core: ServerCore, daemons: [ServedDaemon], loop: EventLoop) throws {
        self.core = core
        self.daemons = daemons
        self.loop = loop
        proxyHeaders = ProxyHeaderWait(loop: loop, timeout: configuration.proxyHeaderTimeout, limit: configuration.connectionLimit)
        let socket = try Self.bind(configuration)
        self.socket = socket
        port = Self.boundPort(of: socket) ?? configuration.port
    }

    /// The port the kernel chose (for port 0) or was given.
    private static func boundPort(of socket: Int32) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        return withUnsafePointer(to: address) { pointer in
            if pointer.pointee.ss_family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    func start() throws {
        let watching: Bool = loop.executeAndWait { [self] in
            do {
                try loop.watch(socket, events: Readiness.readable.epollEvents) { [unowned self] _ in acceptAll() }
                return true
            } catch {
                return false
            }
        }
        guard watching else {
            close(socket)
            throw HTTPServerError.startFailed(host: core.configuration.host, port: port)
        }
    }

    /// Stops accepting and closes the socket: new connections are refused from now on.
    func stop() {
        loop.executeAndWait { [self] in
            loop.unwatch(socket)
            proxyHeaders.closeAll()
        }
        close(socket)
    }

    /// On the loop: accepts until the queue is empty.
    private func acceptAll() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    chirp_accept(socket, $0, &length)
                }
            }
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // EAGAIN: the queue is empty. EMFILE and the like: the next readiness retries.
                return
            }
            let peer = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    AddressText.read { chirp_sockaddr_ip(address, $0, $1) }
                }
            }
            let configuration = core.configuration
            let fromProxy = configuration.trustedProxies.contains(peer)
            if configuration.proxyProtocol {
                // Only a trusted proxy may say who the client is; it always does, first.
                guard fromProxy else {
                    close(client)
                    continue
                }
                let accepted = client
                proxyHeaders.read(accepted) { [self] proxied in
                    if let proxied {
                        admit(client: accepted, address: proxied.storage, length: proxied.length, clientAddress: proxied.text)
                    } else {
                        // The proxy's own connection (a health check): under its address.
                        admit(client: accepted, address: address, length: length, clientAddress: peer)
                    }
                }
                continue
            }
            // A proxy forwarding plain HTTP carries many clients on its connections: they are
            // told apart by `X-Forwarded-For`, not counted against the proxy's address.
            admit(client: client, address: address, length: length, clientAddress: peer, perAddressLimit: fromProxy ? 0 : nil)
        }
    }

    /// Counts the connection against the limits under `clientAddress`, then hands it to the
    /// daemon with the fewest connections, or closes it.
    private func admit(client: Int32, address: sockaddr_storage, length: socklen_t, clientAddress: String, perAddressLimit: Int? = nil) {
        let configuration = core.configuration
        guard core.deadlines.admit(
            clientAddress, limit: configuration.connectionLimit, perAddressLimit: perAddressLimit ?? configuration.perIPConnectionLimit)
        else {
            close(client)
            return
        }
        guard let target = daemons.min(by: { $0.connections < $1.connections }) else {
            core.deadlines.abandoned(clientAddress)
            close(client)
            return
        }
        target.adopt(client, address: address, length: length, clientAddress: clientAddress)
    }

    /// A listening socket on the configured host, which must be an IPv4 or IPv6 address.
    private static func bind(_ configuration: HTTPServerConfiguration) throws -> Int32 {
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, configuration.host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = UInt16(configuration.port).bigEndian
            return try listening(on: ipv4, family: AF_INET, configuration)
        }
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, configuration.host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = UInt16(configuration.port).bigEndian
            return try listening(on: ipv6, family: AF_INET6, configuration)
        }
        throw HTTPServerError.invalidHost(configuration.host)
    }

    /// A non-blocking socket of `family` bound to `address` (its `sockaddr_in` or
    /// `sockaddr_in6`) and listening.
    private static func listening<Address>(on address: Address, family: Int32, _ configuration: HTTPServerConfiguration) throws -> Int32 {
        let failed = { (code: Int32) in
            HTTPServerError.cannotListen(
                host: configuration.host, port: configuration.port,
                reason: code == EADDRINUSE ? HTTPServerError.addressInUse : String(cString: strerror(code)))
        }
        let descriptor = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failed(errno) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard bound == 0, listen(descriptor, Int32(configuration.listenBacklog)) == 0 else {
            let code = errno
            close(descriptor)
            throw failed(code)
        }
        return descriptor
    }
}
