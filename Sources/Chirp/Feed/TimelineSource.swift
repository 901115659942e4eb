import Postgres


/// The three post timelines, newest first: everyone's (less the users a signed-in viewer
/// muted), a signed-in user's home feed (their own posts and those of the people they follow,
/// less those they muted), and one author's.
package enum TimelineSource {
    case global(viewer: PostgresUUID?)
    case home(viewer: PostgresUUID)
    case author(username: String)

    /// Cursors are bound to their list, so one from another list (or another user's home
    /// feed) is refused instead of silently paging the wrong thing.
    var scope: String {
        switch self {
        case .global: "posts"
        case .home(let viewer): "feed:\(viewer.lowercasedString)"
        case .author(let username): "users/\(username)/posts"
        }
    }
}
