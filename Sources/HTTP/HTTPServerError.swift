/// Why `HTTPServer.start()` failed.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidHost(String)
    case invalidConfiguration(String)
    case alreadyStarted
    /// libmicrohttpd would not start, usually because the address is in use.
    case startFailed(host: String, port: Int)

    public var description: String {
        switch self {
        case .invalidHost(let host): "not an IP address: \(host)"
        case .invalidConfiguration(let reason): "invalid server configuration: \(reason)"
        case .alreadyStarted: "the server was already started"
        case .startFailed(let host, let port): "could not listen on \(host):\(port)"
        }
    }
}
