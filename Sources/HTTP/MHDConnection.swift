import CMicroHTTPD

/// What the server reads from a libmicrohttpd connection, on its daemon's loop.
enum MHDConnection {
    /// What `MHDCallbacks.collectHeader` fills in, field by field.
    struct HeadReading {
        var headers: HTTPHeaders
        var layout: HeadLayout?

        init(layout: HeadLayout?) {
            headers = HTTPHeaders()
            headers.reserveCapacity(8)  // a typical client's head, in one allocation
            self.layout = layout
        }
    }

    /// The request's header fields, in the order they came, and whether they and the request
    /// line account for the whole head libmicrohttpd read (`HeadLayout`).
    static func head(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?, targetBytes: Int
    ) -> (headers: HTTPHeaders, intact: Bool) {
        var reading = HeadReading(
            layout: version.map {
                HeadLayout(method: method, targetBytes: targetBytes, version: $0, headBytes: chirp_mhd_head_size(connection))
            })
        withUnsafeMutablePointer(to: &reading) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, MHDCallbacks.collectHeader, pointer)
        }
        return (reading.headers, reading.layout?.isIntact ?? false)
    }

    static func clientAddress(_ connection: OpaquePointer) -> String {
        AddressText.read { chirp_mhd_client_ip(connection, $0, $1) }
    }
}
