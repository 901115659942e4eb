#if canImport(Glibc)
import Glibc
#endif
import EventLoops

/// Reads the PROXY header that starts each connection from a trusted proxy, on the listener's
/// loop, before the connection is counted and handed to libmicrohttpd: exactly the header's
/// bytes are taken from the socket, so the request behind it is left for libmicrohttpd. A
/// connection whose header is malformed, or has not arrived within `timeout`, is closed.
///
/// Confined to the loop: every method runs on it (`@unchecked Sendable` for the listener).
final class ProxyHeaderWait: @unchecked Sendable {
    private let loop: EventLoop
    private let timeout: Duration
    /// At most this many connections wait at once; more are closed at once.
    private let limit: Int
    /// Waiting sockets, each with the number that tells its timer it is still the same wait
    /// (a socket number is reused once closed).
    private var waiting: [Int32: UInt64] = [:]
    private var nextWait: UInt64 = 0

    init(loop: EventLoop, timeout: Duration, limit: Int) {
        self.loop = loop
        self.timeout = timeout
        self.limit = limit
    }

    /// Waits for `socket`'s header, then calls `proceed` with the client it names (nil for the
    /// proxy's own connections), or closes the socket.
    func read(_ socket: Int32, proceed: @escaping (ProxiedAddress?) -> Void) {
        guard waiting.count < limit else {
            close(socket)
            return
        }
        nextWait += 1
        let wait = nextWait
        do {
            try loop.watch(socket, events: Readiness.readable.epollEvents) { [unowned self] _ in
                attempt(socket, proceed: proceed)
            }
        } catch {
            close(socket)
            return
        }
        waiting[socket] = wait
        loop.schedule(after: timeout) { [weak self] in
            guard let self, waiting[socket] == wait else { return }
            finish(socket, closing: true)
        }
        // The header usually arrives with the connection.
        attempt(socket, proceed: proceed)
    }

    /// Closes every waiting connection: the listener is stopping.
    func closeAll() {
        for socket in Array(waiting.keys) { finish(socket, closing: true) }
    }

    private func attempt(_ socket: Int32, proceed: (ProxiedAddress?) -> Void) {
        guard waiting[socket] != nil else { return }
        var buffer = [UInt8](repeating: 0, count: ProxyProtocolHeader.maximumLength)
        let peeked = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        if peeked < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            finish(socket, closing: true)
            return
        }
        switch ProxyProtocolHeader.parse(buffer.prefix(peeked)) {
        case .incomplete where peeked > 0 && peeked < ProxyProtocolHeader.maximumLength:
            return  // the rest is on its way
        case .header(let length, let client):
            // Take the header's bytes, and only those: the request follows.
            let taken = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, length, 0) }
            guard taken == length else {
                finish(socket, closing: true)
                return
            }
            finish(socket, closing: false)
            proceed(client)
        default:
            // Malformed, too long, or the proxy closed before a whole header.
            finish(socket, closing: true)
        }
    }

    private func finish(_ socket: Int32, closing: Bool) {
        waiting[socket] = nil
        loop.unwatch(socket)
        if closing { close(socket) }
    }
}
