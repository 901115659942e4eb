import CMicroHTTPD
import Observability

/// The access handler's state machine. libmicrohttpd calls it once with the headers, once per
/// chunk of body, and once more when the body is complete; the response is queued on that last
/// call (queuing on the first makes libmicrohttpd close the connection, which is wanted only
/// when refusing a body that will not be read).
extension ServerCore {
    func access(
        served: ServedDaemon,
        connection: OpaquePointer,
        context: RequestContext,
        method: String,
        uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        switch context.phase {
        case .head:
            return readHead(connection: connection, context: context, method: method)

        case .body where uploadSize.pointee > 0:
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if context.body.count + count > configuration.maxBodyBytes {
                // A chunked body went past the limit. libmicrohttpd cannot queue a response in
                // the middle of a body, so drop the rest and answer 413 when it ends.
                context.discarded = context.body.count + count
                context.body = []
                context.phase = .discarding
                return .YES
            }
            if let uploadData {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
                    context.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
                }
            }
            return .YES

        case .discarding where uploadSize.pointee > 0:
            context.discarded += uploadSize.pointee
            uploadSize.pointee = 0
            if context.discarded > discardLimit {
                // Not worth reading further: close the connection without an answer.
                logger.info("request body far over the limit, connection closed", [
                    "requestId": .string(context.request?.requestID ?? ""),
                    "remote": .string(context.request?.remoteAddress ?? ""),
                ])
                return .NO
            }
            return .YES

        case .discarding:
            guard let request = context.request else { return .NO }
            MHDCallbacks.state(connection)?.stopWaiting()
            context.request = nil
            context.phase = .answered
            return queue(refuse(request, .payloadTooLarge(limit: configuration.maxBodyBytes)), on: connection)

        case .body:
            guard var request = context.request else { return .NO }
            MHDCallbacks.state(connection)?.stopWaiting()
            request.body = context.body
            context.body = []
            context.request = nil
            if let rejection = request.rejection {
                context.phase = .answered
                return queue(refuse(request, rejection), on: connection)
            }
            context.phase = .running
            start(request, context: context, connection: connection, on: served)
            return .YES

        case .running:
            // Called again once the handler has answered and resumed the connection.
            guard let response = context.response else { return .YES }
            context.response = nil
            context.phase = .answered
            return queue(response, on: connection)

        case .answered:
            // Body bytes still arriving after an early refusal are dropped.
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// Suspends the connection and runs the handler as a task on the daemon's loop; the task
    /// resumes the connection when it has answered, and libmicrohttpd calls `access` again to
    /// queue the answer.
    private func start(_ request: HTTPRequest, context: RequestContext, connection: OpaquePointer, on served: ServedDaemon) {
        let parked = served.suspend(connection)
        Task(executorPreference: served.loop) {
            let response = await self.run(request)
            // On the loop, between calls into libmicrohttpd, like every other use of it.
            context.response = response
            served.resume(parked)
        }
    }

    /// How much of an oversized chunked body is read (and dropped) so that the client still
    /// gets its 413; past this the connection is closed instead.
    var discardLimit: Int { max(4 * configuration.maxBodyBytes, 256 * 1024) }

    /// First call: the request line and headers are in. Builds the request and decides whether
    /// it is refused before any body is read.
    private func readHead(connection: OpaquePointer, context: RequestContext, method: String) -> MHD_Result {
        let headers = Self.requestHeaders(connection)
        var request = HTTPRequest(
            method: HTTPMethod(rawValue: method) ?? .GET,
            path: "/",
            headers: headers,
            // Read once, when the connection opened.
            remoteAddress: MHDCallbacks.state(connection)?.address ?? Self.clientAddress(connection),
            requestID: RequestID.resolve(headers))

        let declaredLength = headers["Content-Length"]
        let transferEncoding = headers["Transfer-Encoding"]
        var length: Int?
        var rejection: HTTPError?

        if headers.contains(where: { $0.name.utf8.contains(0) || $0.value.utf8.contains(0) }) {
            // libmicrohttpd 0.9.75 ends a value at a NUL byte; refuse any that still gets through
            // (RFC 9110 §5.5).
            rejection = .badRequest(detail: "header fields must not contain NUL")
        } else if HTTPMethod(rawValue: method) == nil {
            if Self.isToken(method) {
                request.unknownMethod = String(method.prefix(32))
                rejection = .notImplemented(detail: "this method is not supported")
            } else {
                request.unknownMethod = "invalid"
                rejection = .badRequest(detail: "the request method is malformed")
            }
        } else if let target = context.target {
            if let parsed = RequestTarget(target) {
                request.path = parsed.path
                request.query = parsed.query
            } else {
                rejection = .badRequest(detail: "the request target must be a path")
            }
        } else {
            rejection = .uriTooLong(limit: configuration.maxURLBytes)
        }

        if transferEncoding != nil && declaredLength != nil {
            // A request smuggling vector: two framings that intermediaries may read differently.
            rejection = .badRequest(detail: "Transfer-Encoding and Content-Length must not both be sent")
        } else if let transferEncoding, !Self.isChunked(transferEncoding) {
            rejection = .notImplemented(detail: "only the chunked transfer coding is supported")
        } else if declaredLength != nil {
            let values = Set(headers.values(for: "Content-Length"))
            if values.count == 1, let value = values.first, let parsed = Self.parseLength(value) {
                length = parsed
                if parsed > configuration.maxBodyBytes && rejection == nil {
                    rejection = .payloadTooLarge(limit: configuration.maxBodyBytes)
                }
            } else {
                rejection = .badRequest(detail: "Content-Length is malformed")
            }
        }

        request.rejection = rejection
        // An unreadable Content-Length counts as a body: the framing is unknown, so the
        // connection must not be reused.
        let expectsBody = transferEncoding != nil || (declaredLength != nil && (length ?? 1) > 0)
        if let rejection, expectsBody {
            // Answer before reading the body; libmicrohttpd closes the connection after.
            context.phase = .answered
            return queue(refuse(request, rejection), on: connection)
        }
        context.request = request
        context.phase = .body
        return .YES
    }

    /// Hands `response` to libmicrohttpd, which copies it.
    func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let status = (100...599).contains(response.status) ? response.status : 500
        // These statuses never have a body (RFC 9110 §6.4.1); HEAD is handled by libmicrohttpd.
        let body = (status < 200 || status == 204 || status == 304) ? [] : response.body
        let made = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for (name, value) in response.headers where Self.isSendable(name: name, value: value) {
            // Explicit `withCString`: passing a short `String` itself would copy it to the heap.
            _ = name.withCString { name in value.withCString { value in MHD_add_response_header(made, name, value) } }
        }
        if draining.load(ordering: .relaxed) {
            _ = MHD_add_response_header(made, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(status), made)
    }

    /// libmicrohttpd sets the framing headers itself; anything that could split the response
    /// (CR, LF, NUL) is dropped.
    static func isSendable(name: String, value: String) -> Bool {
        if HTTPHeaders.sameName(name, "Content-Length") || HTTPHeaders.sameName(name, "Transfer-Encoding")
            || HTTPHeaders.sameName(name, "Connection") {
            return false
        }
        let forbidden: (UInt8) -> Bool = { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
        return !name.isEmpty && !name.utf8.contains(where: forbidden) && !value.utf8.contains(where: forbidden)
    }

    /// RFC 9110 token characters only, as a method must be.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    static func isChunked(_ value: String) -> Bool {
        HTTPHeaders.sameName(value.trimmingASCIISpaces(), "chunked")
    }

    /// Digits only (no sign, no spaces inside), at most 18 of them.
    static func parseLength(_ value: String) -> Int? {
        let trimmed = value.trimmingASCIISpaces()
        guard !trimmed.isEmpty, trimmed.utf8.count <= 18,
              trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(trimmed)
    }

    static func requestHeaders(_ connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)  // a typical client's request head, in one allocation
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, MHDCallbacks.collectHeader, pointer)
        }
        return headers
    }

    static func clientAddress(_ connection: OpaquePointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            buffer.initialize(repeating: 0)
            guard chirp_mhd_client_ip(connection, buffer.baseAddress, buffer.count - 1) == 0, let start = buffer.baseAddress else {
                return "unknown"
            }
            return String(cString: start)
        }
    }
}
