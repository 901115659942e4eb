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

/// The SQL of the follow lists, newest follow first: the page's follows first, a range scan
/// of the list's index (`0024`) as the likers list is, then their users, one probe each.
extension FollowQueries {
    /// Settings of a follow list's transaction. Planned for the average user (a few dozen
    /// follows), a page would be a bitmap scan of all the user's follows and a sort, which for
    /// a user with thousands of followers reads them all on every page; without bitmap scans
    /// the page is read in order and stops at the limit, whoever it is.
    package static let listSettings: [PostgresIdentity.Setting] = [.init("enable_bitmapscan", "off")]

    package static func followers(of username: String, after position: KeysetPosition, limit: Int) -> PostgresRead<[ListedUser]> {
        list(of: username, listing: "follower_id", by: "followee_id", after: position, limit: limit)
    }

    package static func following(of username: String, after position: KeysetPosition, limit: Int) -> PostgresRead<[ListedUser]> {
        list(of: username, listing: "followee_id", by: "follower_id", after: position, limit: limit)
    }

    /// The follows whose `owner` column is the user's, newest first, each listing the user in
    /// its `listed` column. The column names are the two above, never input.
    private static func list(
        of username: String, listing listed: StaticString, by owner: StaticString, after position: KeysetPosition, limit: Int
    ) -> PostgresRead<[ListedUser]> {
        PostgresQuery("""
            select \(unescaped: ListedUser.columns)
            from (select \(unescaped: "\(listed)") as user_id, created_at from follows
                  where \(unescaped: "\(owner)") = (select id from users where username = \(username))
                    and (created_at, \(unescaped: "\(listed)")) < (\(position.timestamp), \(position.id))
                  order by created_at desc, \(unescaped: "\(listed)") desc
                  limit \(limit)) as f
            join users u on u.id = f.user_id
            order by f.created_at desc, f.user_id desc
            """).rows(ListedUser.init(row:))
    }

    package static func userExists(_ username: String) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from users where username = \(username))").value(Bool.self)
    }
}
