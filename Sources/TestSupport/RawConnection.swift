#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP

/// A client socket with exact control over the bytes sent, for tests that must misbehave.
public final class RawConnection {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One parsed response.
    public struct Response {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            // Closed here, and marked so that deinit (which runs for an instance whose
            // initializer threw after setting every property) does not close the number again:
            // by then it may belong to another test's socket or event loop.
            close(fd)
            fd = -1
            throw Failure(description: "connect: \(code)")
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: \(errno)") }
            offset += sent
        }
    }

    /// Reads one response. `bodyless` is for answers to HEAD.
    public func readResponse(timeout: Duration = .seconds(3), bodyless: Bool = false) throws -> Response {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                    throw Failure(description: "bad status line in \(head)")
                }
                var headers = HTTPHeaders()
                for line in lines where !line.isEmpty {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces())
                }
                let length = bodyless ? 0 : Int(headers["Content-Length"] ?? "0") ?? 0
                while buffer.count < end + 4 + length {
                    guard try fill(until: deadline) else { throw Failure(description: "closed inside a body") }
                }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard try fill(until: deadline) else {
                throw Failure(description: "closed before a response (\(buffer.count) bytes buffered)")
            }
        }
    }

    /// What happened next: a response, the server closing, or nothing before the timeout.
    public enum Outcome {
        case response(Response)
        case closed
        case silent
    }

    public func outcome(timeout: Duration) -> Outcome {
        do {
            return .response(try readResponse(timeout: timeout))
        } catch let failure as Failure where failure.description == "timeout" {
            return .silent
        } catch {
            return .closed
        }
    }

    /// True once the server has closed the connection (EOF or reset) before the timeout.
    public func waitForClose(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                if try !fill(until: deadline) { return true }
                buffer.removeAll()
            } catch {
                return (error as? Failure)?.description != "timeout"
            }
        }
    }

    /// Reads more bytes; false on EOF, throws "timeout" when nothing came in time.
    private func fill(until deadline: ContinuousClock.Instant) throws -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw Failure(description: "timeout") }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let (seconds, attoseconds) = remaining.components
        let milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else { throw Failure(description: "timeout") }
        var chunk = [UInt8](repeating: 0, count: 16384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw Failure(description: "recv: \(errno)")
        }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}

extension String {
    public func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
