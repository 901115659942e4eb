import HTTP

/// Weak ETags for first pages and profiles: a pull-to-refresh that finds nothing new gets a
/// 304 without a body. The tag is a 128-bit BLAKE2b digest of the body: hashing every
/// first page with SHA-256 cost a tenth of the request.
enum ETag {
    static func respond(to request: HTTPRequest, with response: HTTPResponse) -> HTTPResponse {
        let tag = "W/\"" + Base64URL.encode(BLAKE2b.hash(response.body)) + "\""
        if let condition = request.headers["If-None-Match"], matches(condition, tag) {
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
