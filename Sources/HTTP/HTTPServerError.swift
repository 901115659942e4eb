/// Why `HTTPServer.start()` failed.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidHost(String)
    case invalidConfiguration(String)
    case alreadyStarted
    /// libmicrohttpd would not start.
    case startFailed(host: String, port: Int)
    /// The listening socket could not be bound: `reason` is the system's (`address already in
    /// use` when another process holds the port).
    case cannotListen(host: String, port: Int, reason: String)

    /// Whether another socket holds the address.
    public var isAddressInUse: Bool {
        if case .cannotListen(_, _, let reason) = self { return reason == Self.addressInUse }
        return false
    }

    static let addressInUse = "address already in use"

    public var description: String {
        switch self {
        case .invalidHost(let host): "not an IP address: \(host)"
        case .invalidConfiguration(let reason): "invalid server configuration: \(reason)"
        case .alreadyStarted: "the server was already started"
        case .startFailed(let host, let port): "could not start serving on \(host):\(port)"
        case .cannotListen(let host, let port, let reason): "could not listen on \(host):\(port): \(reason)"
        }
    }
}
