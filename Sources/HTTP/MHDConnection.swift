import CMicroHTTPD

/// What the server reads from a libmicrohttpd connection, on its daemon's loop.
enum MHDConnection {
    /// The request's header fields, in the order they came.
    static func headers(_ connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)  // a typical client's request head, in one allocation
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, MHDCallbacks.collectHeader, pointer)
        }
        return headers
    }

    static func clientAddress(_ connection: OpaquePointer) -> String {
        AddressText.read { chirp_mhd_client_ip(connection, $0, $1) }
    }
}
