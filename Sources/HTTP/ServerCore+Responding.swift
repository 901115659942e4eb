import CMicroHTTPD

extension ServerCore {
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
        for (name, value) in response.headers where HTTPHeaders.maySend(name: name, value: value) {
            // Explicit `withCString`: passing a short `String` itself would copy it to the heap.
            _ = name.withCString { name in value.withCString { value in MHD_add_response_header(made, name, value) } }
        }
        if draining.load(ordering: .relaxed) {
            _ = MHD_add_response_header(made, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(status), made)
    }
}
