import Postgres

/// The SQL of follows: the write, then the followee's counter, pipelined in one transaction.
/// Under READ COMMITTED the second statement sees the counter trigger's update, and the
/// trigger's row locks (taken in id order) serialize concurrent follows of one user, so the
/// count is exact. The follower is always the request's own user, `app.user_id()`.
package enum FollowQueries {
    /// Idempotent; an unknown username inserts nothing.
    package static func follow(_ username: String) -> PostgresQuery {
        """
        insert into follows (follower_id, followee_id)
        select (select app.user_id()), u.id from users u where u.username = \(username)
        on conflict do nothing
        """
    }

    /// Idempotent: deletes nothing when the viewer was not following.
    package static func unfollow(_ username: String) -> PostgresQuery {
        """
        delete from follows
        where follower_id = (select app.user_id())
          and followee_id = (select u.id from users u where u.username = \(username))
        """
    }

    /// Nil when the user does not exist.
    package static func followerCount(of username: String) -> PostgresRead<Int?> {
        PostgresQuery("select follower_count from users where username = \(username)").firstRow { try $0.decode(Int.self, at: 0) }
    }
}
