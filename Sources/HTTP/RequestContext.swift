/// libmicrohttpd's per-request pointer: made when the request line arrives, released when the
/// request completes. Only the connection's callbacks and its handler's task touch it, all on
/// the server's event loop and one at a time, so it needs no lock: hence `@unchecked Sendable`.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        /// Waiting for the first handler call, which carries the headers.
        case head
        /// Headers seen; body bytes, if any, are arriving.
        case body
        /// A chunked body went past the limit: the rest is read and dropped, then 413 is sent.
        case discarding
        /// The handler runs; the connection is suspended until it has answered.
        case running
        /// A response is queued; anything still arriving is discarded.
        case answered
    }

    var phase = Phase.head
    /// The raw request target, or nil when it exceeded the URL limit.
    let target: String?
    /// The raw request target's length in bytes, as sent; -1 when libmicrohttpd gave none.
    let targetBytes: Int
    var request: HTTPRequest?
    var body: [UInt8] = []
    /// Bytes dropped in `.discarding`.
    var discarded = 0
    /// The handler's answer, queued when the connection resumes.
    var response: HTTPResponse?

    init(target: String?, targetBytes: Int) {
        self.target = target
        self.targetBytes = targetBytes
    }
}
