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
