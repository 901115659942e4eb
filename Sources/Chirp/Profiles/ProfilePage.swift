/// A profile and the first page of its posts: `{profile, posts}`.
struct ProfilePage: JSONWritable {
    var profile: Profile
    var posts: CursorPage<Post>

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("profile"); profile.write(to: &json)
        json.key("posts"); posts.write(to: &json)
        json.endObject()
    }
}
