/// A request's line and headers, checked before any of its body is read: well-formed header
/// fields, a method the service knows, a target within the URL limit that is a path, and a body
/// framing the server reads. A request that fails carries its refusal in `rejection`.
struct RequestHead {
    var request: HTTPRequest
    /// Whether body bytes follow the head, so that refusing the request now must close the
    /// connection rather than skip a body of unknown length.
    let expectsBody: Bool
    /// Whether a header field is malformed: where this request ends, and the next begins, is
    /// then in doubt, so it is refused at once and its connection closed.
    private(set) var hasMalformedField = false

    /// - Parameter target: the raw request target, or nil when it exceeded the URL limit.
    /// - Parameter headIsIntact: whether the head reached the server as sent (`HeadLayout`).
    init(
        method: String, target: String?, headers: HTTPHeaders, headIsIntact: Bool, remoteAddress: String,
        configuration: HTTPServerConfiguration
    ) {
        let known = HTTPMethod(rawValue: method)
        request = HTTPRequest(
            method: known ?? .GET,
            path: "/",
            headers: headers,
            remoteAddress: remoteAddress,
            requestID: RequestID.resolve(headers))
        let framing = BodyFraming(headers, maxBodyBytes: configuration.maxBodyBytes)
        expectsBody = framing.expectsBody
        let malformed = headIsIntact ? Self.malformedField(in: headers) : Self.rewrittenHead
        hasMalformedField = malformed != nil
        let refusal = malformed ?? Self.check(&request, method: method, known: known, target: target, maxURLBytes: configuration.maxURLBytes)
        // Framing the server cannot read outranks every other refusal; a body over the limit
        // is refused only when nothing else is wrong.
        request.rejection = framing.unreadable ?? refusal ?? framing.tooLarge
    }

    /// Fills in the path and query, or says why the head is refused.
    private static func check(
        _ request: inout HTTPRequest, method: String, known: HTTPMethod?, target: String?, maxURLBytes: Int
    ) -> HTTPError? {
        guard known != nil else { return refuseMethod(method, of: &request) }
        guard let target else { return .uriTooLong(limit: maxURLBytes) }
        guard let parsed = RequestTarget(target) else { return .badRequest(detail: "the request target must be a path") }
        request.path = parsed.path
        request.query = parsed.query
        return nil
    }

    /// RFC 9112 §5.1 and RFC 9110 §5.5, past what libmicrohttpd 0.9.75 refuses itself: a field
    /// name is a token, so whitespace between it and the colon (which libmicrohttpd keeps in the
    /// name) is refused, as a proxy may read such a field differently (request smuggling); a
    /// value holds no control character but HTAB, so a bare CR is refused. libmicrohttpd ends a
    /// value at a NUL and appends a folded line to the field's name, so what reaches here of
    /// those is refused by the same two rules (docs/SECURITY.md says what cannot).
    static func malformedField(in headers: HTTPHeaders) -> HTTPError? {
        for field in headers {
            guard isToken(field.name) else {
                return .badRequest(detail: "a header field name must be a token, with no whitespace before its colon")
            }
            if field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return .badRequest(detail: "header field values must not contain control characters (CR, LF, NUL)")
            }
        }
        return nil
    }

    /// A head libmicrohttpd did not read as sent (`HeadLayout`): a NUL, an obsolete folded line
    /// (RFC 9112 §5.2), a field with an empty name, or a line ended by a bare CR or LF.
    static let rewrittenHead = HTTPError.badRequest(
        detail: "the request head must be lines ending in CRLF, each field a name, a colon and a value, with no NUL or folded line")

    /// A method outside `HTTPMethod`: 501 when it is well formed, 400 when it is not. The logs
    /// get it as sent, bounded, or `invalid`.
    private static func refuseMethod(_ method: String, of request: inout HTTPRequest) -> HTTPError {
        guard isToken(method) else {
            request.unknownMethod = "invalid"
            return .badRequest(detail: "the request method is malformed")
        }
        request.unknownMethod = String(method.prefix(32))
        return .notImplemented(detail: "this method is not supported")
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
}
