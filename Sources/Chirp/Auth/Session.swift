import HTTP

/// What sign-up, login and refresh answer: the user and a fresh token pair.
struct Session: JSONWritable {
    var user: Profile
    var accessToken: String
    var refreshToken: String
    var expiresIn: Int

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("user"); user.write(to: &json)
        json.key("accessToken"); json.string(accessToken)
        json.key("refreshToken"); json.string(refreshToken)
        json.key("expiresIn"); json.int(expiresIn)
        json.endObject()
    }
}

extension HTTPResponse {
    /// A session's answer: its tokens must never be kept by a cache, a browser's or a proxy's
    /// (RFC 9111 §5.2.2.5).
    static func session(_ status: Int, _ session: Session) -> HTTPResponse {
        var response = HTTPResponse.json(status, session)
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}
