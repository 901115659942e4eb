import Foundation
import Postgres

/// The SQL of comments. Threads read oldest first, each page one range scan of a partial
/// index: `comments_top_level_idx` for a post's top-level comments, `comments_replies_idx`
/// for the replies to one comment.
package enum CommentQueries {
    /// A post's top-level comments strictly after `position`, oldest first.
    package static func thread(of post: PostgresUUID, after position: KeysetPosition, limit: Int) -> PostgresRead<[Comment]> {
        PostgresQuery("""
        select \(unescaped: Comment.columns) from comments c join users a on a.id = c.author_id
        where c.post_id = \(post) and c.parent_id is null
          and (c.created_at, c.id) > (\(position.timestamp), \(position.id))
        order by c.created_at, c.id
        limit \(limit)
        """).rows(Comment.init(row:))
    }

    /// The replies to one comment strictly after `position`, oldest first.
    static func replies(to comment: PostgresUUID, after position: KeysetPosition, limit: Int) -> PostgresRead<[Comment]> {
        PostgresQuery("""
        select \(unescaped: Comment.columns) from comments c join users a on a.id = c.author_id
        where c.parent_id = \(comment)
          and (c.created_at, c.id) > (\(position.timestamp), \(position.id))
        order by c.created_at, c.id
        limit \(limit)
        """).rows(Comment.init(row:))
    }

    /// Inserts through the post's row, so an unknown post inserts nothing (no row back, a
    /// 404) rather than failing on whichever foreign key the server checks first. A parent
    /// that is not a top-level comment of this post fails on `comments_parent_same_post_fkey`
    /// or the trigger `comments_reply_to_top_level`.
    /// The new comment, under the id the service chose for it (see `PostQueries.create`).
    package static func create(
        _ id: PostgresUUID, on post: PostgresUUID, parent: PostgresUUID?, by viewer: PostgresUUID, body: String
    ) -> PostgresRead<Comment?> {
        PostgresQuery("""
        with c as (
            insert into comments (id, post_id, parent_id, author_id, body)
            select \(id)::uuid, p.id, \(parent)::uuid, \(viewer)::uuid, \(body)::text from posts p where p.id = \(post)
            returning *
        )
        select \(unescaped: Comment.columns) from c join users a on a.id = c.author_id
        """).firstRow(Comment.init(row:))
    }

    static func comment(_ id: PostgresUUID) -> PostgresRead<Comment?> {
        PostgresQuery("select \(unescaped: Comment.columns) from comments c join users a on a.id = c.author_id where c.id = \(id)")
            .firstRow(Comment.init(row:))
    }

    /// The new body, as the author's comment now reads; nil when the update policy hid it (not
    /// the viewer's) or it does not exist.
    static func edit(_ id: PostgresUUID, body: String) -> PostgresRead<Comment?> {
        PostgresQuery("""
            update comments c set body = \(body) from users a
            where c.id = \(id) and a.id = c.author_id
            returning \(unescaped: Comment.columns)
            """).firstRow(Comment.init(row:))
    }

    /// The delete policy lets only the comment's author or the post's author see the row.
    static func delete(_ comment: PostgresUUID) -> PostgresRead<Int> {
        PostgresQuery("delete from comments where id = \(comment)").affectedRows
    }

    static func exists(_ comment: PostgresUUID) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from comments where id = \(comment))").value(Bool.self)
    }
}
