/// How a request's head says its body is delimited: `Transfer-Encoding: chunked`, one
/// `Content-Length`, or neither (no body). libmicrohttpd's parser tolerates more than the
/// server should read, so anything else is refused before the body.
struct BodyFraming {
    /// Whether body bytes follow the head. An unreadable Content-Length counts as a body: the
    /// framing is unknown, so the connection must not be reused.
    let expectsBody: Bool
    /// Framing the server will not read.
    private(set) var unreadable: HTTPError?
    /// A declared length past the limit.
    private(set) var tooLarge: HTTPError?

    init(_ headers: HTTPHeaders, maxBodyBytes: Int) {
        let declaredLength = headers["Content-Length"]
        let transferEncoding = headers["Transfer-Encoding"]
        var length: Int?
        if transferEncoding != nil && declaredLength != nil {
            // A request smuggling vector: two framings that intermediaries may read differently.
            unreadable = .badRequest(detail: "Transfer-Encoding and Content-Length must not both be sent")
        } else if let transferEncoding, !Self.isChunked(transferEncoding) {
            unreadable = .notImplemented(detail: "only the chunked transfer coding is supported")
        } else if declaredLength != nil {
            length = Self.singleLength(headers)
            if let length {
                if length > maxBodyBytes { tooLarge = .payloadTooLarge(limit: maxBodyBytes) }
            } else {
                unreadable = .badRequest(detail: "Content-Length is malformed")
            }
        }
        expectsBody = transferEncoding != nil || (declaredLength != nil && (length ?? 1) > 0)
    }

    static func isChunked(_ value: String) -> Bool {
        HTTPHeaders.sameName(value.trimmingASCIISpaces(), "chunked")
    }

    /// The length every `Content-Length` field agrees on, if it is well formed.
    private static func singleLength(_ headers: HTTPHeaders) -> Int? {
        let values = Set(headers.values(for: "Content-Length"))
        guard values.count == 1, let value = values.first else { return nil }
        return parseLength(value)
    }

    /// Digits only (no sign, no spaces inside), at most 18 of them.
    static func parseLength(_ value: String) -> Int? {
        let trimmed = value.trimmingASCIISpaces()
        guard !trimmed.isEmpty, trimmed.utf8.count <= 18,
              trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(trimmed)
    }
}
