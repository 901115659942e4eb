#if canImport(Glibc)
import Glibc
#endif

/// Limits of an `HTTPServer`. The defaults suit a service behind a proxy on a small
/// machine; every limit is enforced before a handler runs.
public struct HTTPServerConfiguration: Sendable {
    /// Event loops serving connections, each on a thread of its own (default: one per core).
    public var eventLoops: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// Address to bind, IPv4 or IPv6 text.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port: Int = 8080
    /// Open connections at most; more are refused at accept.
    public var connectionLimit: Int = 1024
    /// Open connections per client address at most; 0 disables the check. Connections from a
    /// trusted proxy forwarding plain HTTP are not counted under its address (its clients are
    /// told apart by `X-Forwarded-For`); with the PROXY protocol each counts under its client's.
    public var perIPConnectionLimit: Int = 256
    /// Load balancers whose word on the client's address is taken (`TrustedProxies`): from
    /// their `X-Forwarded-For`, or from their PROXY header when `proxyProtocol` is on.
    public var trustedProxies: TrustedProxies = .none
    /// Every connection starts with a PROXY protocol header (v1 or v2) naming the client, as
    /// HAProxy's `send-proxy` writes it; connections from peers not in `trustedProxies` are
    /// closed unread.
    public var proxyProtocol = false
    /// How long a trusted proxy's connection may take to deliver its PROXY header.
    public var proxyHeaderTimeout: Duration = .seconds(5)
    /// A connection with no traffic for this long is closed (whole seconds, at least one).
    public var connectionTimeout: Duration = .seconds(15)
    /// A request whose line, headers and body have not all arrived this long after the
    /// connection started waiting for it is cut off, however steadily it trickles in.
    public var requestTimeout: Duration = .seconds(30)
    /// Memory for one connection's request line and headers (libmicrohttpd's pool); a request
    /// whose head does not fit is refused by libmicrohttpd with 431 or 414. libmicrohttpd
    /// clears the whole pool between requests, so it is kept small: 16 KiB holds a head of about
    /// 12 KiB, the longest target (`maxURLBytes`) among it.
    public var connectionMemoryLimit: Int = 16 * 1024
    /// Longest request target (path and query) answered; longer ones get 414.
    public var maxURLBytes: Int = 8 * 1024
    /// Largest request body; larger ones get 413, before the body is read when the length is
    /// declared.
    public var maxBodyBytes: Int = 64 * 1024
    /// Pending connections the kernel queues before accept.
    public var listenBacklog: Int = 511
    /// How long `shutdown()` waits for in-flight requests when given no deadline.
    public var shutdownGrace: Duration = .seconds(10)

    public init() {}

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }
}
