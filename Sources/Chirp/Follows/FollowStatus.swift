/// The answer to a follow or unfollow: the viewer's state and the followee's follower count
/// after the write.
struct FollowStatus: JSONWritable {
    var username: String
    var following: Bool
    var followerCount: Int

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("username"); json.string(username)
        json.key("following"); json.bool(following)
        json.key("followerCount"); json.int(followerCount)
        json.endObject()
    }
}
