import Foundation
import Postgres

/// The SQL of likes. A like or unlike is two statements pipelined in one transaction: the
/// write, then the post's counter. Under READ COMMITTED the second statement takes a fresh
/// snapshot and so sees the counter trigger's update, and the post row lock that trigger
/// takes serializes concurrent likers of one post, so the count returned is exact.
package enum LikeQueries {
    /// Idempotent: liking twice leaves one row (and fires the counter trigger once).
    package static func like(_ post: PostgresUUID, by viewer: PostgresUUID) -> PostgresQuery {
        "insert into likes (user_id, post_id) values (\(viewer), \(post)) on conflict do nothing"
    }

    package static func unlike(_ post: PostgresUUID, by viewer: PostgresUUID) -> PostgresQuery {
        "delete from likes where user_id = \(viewer) and post_id = \(post)"
    }

    /// Nil when the post does not exist.
    package static func likeCount(of post: PostgresUUID) -> PostgresRead<Int?> {
        PostgresQuery("select like_count from posts where id = \(post)").firstRow { try $0.decode(Int.self, at: 0) }
    }

    /// Likers newest first, strictly after `position`: one range scan of
    /// `likes_post_created_at_user_idx`, whatever the depth.
    static func likers(of post: PostgresUUID, after position: KeysetPosition, limit: Int) -> PostgresRead<[Liker]> {
        PostgresQuery("""
            select \(unescaped: Liker.columns) from likes l join users u on u.id = l.user_id
            where l.post_id = \(post) and (l.created_at, l.user_id) < (\(position.timestamp), \(position.id))
            order by l.created_at desc, l.user_id desc
            limit \(limit)
            """).rows(Liker.init(row:))
    }
}
