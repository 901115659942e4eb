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
        method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        switch context.phase {
        case .head:
            return readHead(connection: connection, context: context, method: method, version: version)
        case .body where uploadSize.pointee > 0:
            return receive(Self.take(uploadSize), of: uploadData, context: context)
        case .discarding where uploadSize.pointee > 0:
            return discard(Self.take(uploadSize), context: context)
        case .discarding:
            return refuseOversizedBody(context: context, connection: connection)
        case .body:
            return bodyComplete(context: context, connection: connection, served: served)
        case .running:
            return queueHandlersAnswer(context: context, connection: connection)
        case .answered:
            // Body bytes still arriving after an early refusal are dropped.
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// How much of an oversized chunked body is read (and dropped) so that the client still
    /// gets its 413; past this the connection is closed instead.
    var discardLimit: Int { max(4 * configuration.maxBodyBytes, 256 * 1024) }

    /// First call: the request line and headers are in. A request refused before its body is
    /// answered now; any other waits for its body.
    private func readHead(
        connection: OpaquePointer, context: RequestContext, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?
    ) -> MHD_Result {
        let (headers, intact) = MHDConnection.head(
            connection, method: method, version: version, targetBytes: context.targetBytes)
        // Read once, when the connection opened (after its PROXY header, if any).
        let peer = MHDCallbacks.state(connection)?.address ?? MHDConnection.clientAddress(connection)
        let head = RequestHead(
            method: String(cString: method),
            target: context.target,
            headers: headers,
            headIsIntact: intact,
            remoteAddress: configuration.trustedProxies.isEmpty
                ? peer : configuration.trustedProxies.client(peer: peer, forwardedFor: headers.values(for: "X-Forwarded-For")),
            configuration: configuration)
        if let rejection = head.request.rejection, head.expectsBody || head.hasMalformedField {
            // Answer before reading the body; libmicrohttpd closes the connection after.
            return answer(refuse(head.request, rejection), context: context, connection: connection)
        }
        context.request = head.request
        context.phase = .body
        return .YES
    }

    /// The size of the chunk libmicrohttpd offers, marked as consumed.
    private static func take(_ uploadSize: UnsafeMutablePointer<Int>) -> Int {
        defer { uploadSize.pointee = 0 }
        return uploadSize.pointee
    }

    /// A chunk of body: kept, unless it takes the body past the limit.
    private func receive(_ count: Int, of uploadData: UnsafePointer<CChar>?, context: RequestContext) -> MHD_Result {
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
    }

    /// A chunk of an oversized body, dropped.
    private func discard(_ count: Int, context: RequestContext) -> MHD_Result {
        context.discarded += count
        guard context.discarded > discardLimit else { return .YES }
        // Not worth reading further: close the connection without an answer.
        logger.info("request body far over the limit, connection closed", [
            "requestId": .string(context.request?.requestID ?? ""),
            "remote": .string(context.request?.remoteAddress ?? ""),
        ])
        return .NO
    }

    /// The oversized body has ended: 413.
    private func refuseOversizedBody(context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard let request = takeArrived(context: context, connection: connection) else { return .NO }
        let rejection = HTTPError.payloadTooLarge(limit: configuration.maxBodyBytes)
        return answer(refuse(request, rejection), context: context, connection: connection)
    }

    /// The whole request is in: refused now if its head was, otherwise handed to its handler.
    private func bodyComplete(context: RequestContext, connection: OpaquePointer, served: ServedDaemon) -> MHD_Result {
        guard var request = takeArrived(context: context, connection: connection) else { return .NO }
        request.body = context.body
        context.body = []
        if let rejection = request.rejection {
            return answer(refuse(request, rejection), context: context, connection: connection)
        }
        context.phase = .running
        start(request, context: context, connection: connection, on: served)
        return .YES
    }

    /// Called again once the handler has answered and resumed the connection.
    private func queueHandlersAnswer(context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard let response = context.response else { return .YES }
        context.response = nil
        return answer(response, context: context, connection: connection)
    }

    /// The request whose last byte has arrived, taken from its context; its deadline stops.
    private func takeArrived(context: RequestContext, connection: OpaquePointer) -> HTTPRequest? {
        guard let request = context.request else { return nil }
        MHDCallbacks.state(connection)?.stopWaiting()
        context.request = nil
        return request
    }

    /// Queues the request's answer; whatever still arrives for it is dropped.
    private func answer(_ response: HTTPResponse, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        context.phase = .answered
        return queue(response, on: connection)
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
}
