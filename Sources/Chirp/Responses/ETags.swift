import HTTP

/// Weak ETags for first pages and profiles: a pull-to-refresh that finds nothing new gets a
/// 304 without a body. The tag is a 128-bit SipHash of the body, keyed from the service
/// secret: the cheapest keyed hash libsodium has for a page-sized body, and a tag needs no
/// more than to be hard to collide without the key. The key keeps anyone who sees tags from
/// making a body whose tag matches another's; services sharing the secret agree on every tag.
struct ETags: Sendable {
    private let key: [UInt8]

    init(secret: [UInt8]) {
        key = Array(HMAC.subkey(of: secret, for: "chirp etags v1").prefix(SipHash128.keyLength))
    }

    func respond(to request: HTTPRequest, with response: HTTPResponse) -> HTTPResponse {
        let tag = "W/\"" + Base64URL.encode(SipHash128.hash(key: key, response.body)) + "\""
        if let condition = request.headers["If-None-Match"], Self.matches(condition, tag) {
            var notModified = HTTPResponse.empty(304)
            notModified.headers.set("ETag", tag)
            return notModified
        }
        var tagged = response
        tagged.headers.set("ETag", tag)
        return tagged
    }

    /// `If-None-Match` compares weakly: `W/` prefixes are ignored, `*` matches anything.
    private static func matches(_ condition: String, _ tag: String) -> Bool {
        let opaque = String(tag.dropFirst(2))
        return condition.split(separator: ",").contains { (candidate: Substring) -> Bool in
            let trimmed = String(candidate).trimmingWhitespace
            return trimmed == "*" || trimmed == tag || trimmed == opaque
        }
    }
}
