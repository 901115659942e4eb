/// libmicrohttpd's per-request pointer: made when the request line arrives, released when the
/// request completes. Only the connection's own callbacks touch it, one at a time (libmicrohttpd
/// serves a connection from one thread), so it needs no lock and is not `Sendable`.
final class RequestContext {
    enum Phase {
        /// Waiting for the first handler call, which carries the headers.
        case head
        /// Headers seen; body bytes, if any, are arriving.
        case body
        /// A chunked body went past the limit: the rest is read and dropped, then 413 is sent.
        case discarding
        /// A response is queued; anything still arriving is discarded.
        case answered
    }

    var phase = Phase.head
    /// The raw request target, or nil when it exceeded the URL limit.
    let target: String?
    var request: HTTPRequest?
    var body: [UInt8] = []
    /// Bytes dropped in `.discarding`.
    var discarded = 0

    init(target: String?) {
        self.target = target
    }
}
