import Postgres

/// The SQL of single posts.
package enum PostQueries {
    /// The new post, as the list shows it.
    /// The new post, under the id the service chose for it: should the answer be lost as the
    /// transaction commits, the post can be read back by it.
    package static func create(_ id: PostgresUUID, by author: PostgresUUID, body: String) -> PostgresRead<Post> {
        PostgresQuery("""
            with p as (insert into posts (id, author_id, body) values (\(id), \(author), \(body)) returning *)
            select \(unescaped: Post.columns) from p join users a on a.id = p.author_id
            """).onlyRow(Post.init(row:))
    }

    static func post(_ id: PostgresUUID) -> PostgresRead<Post?> {
        PostgresQuery("select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id where p.id = \(id)")
            .firstRow(Post.init(row:))
    }

    /// The new body, as the author's post now reads; nil when the update policy hid the post
    /// (not the viewer's) or it does not exist. `edited_at` is the trigger's (0025).
    static func edit(_ id: PostgresUUID, body: String) -> PostgresRead<Post?> {
        PostgresQuery("""
            update posts p set body = \(body) from users a
            where p.id = \(id) and a.id = p.author_id
            returning \(unescaped: Post.columns)
            """).firstRow(Post.init(row:))
    }

    /// The delete policy lets only the author see the row: anyone else's delete finds nothing.
    static func delete(_ id: PostgresUUID) -> PostgresRead<Int> {
        PostgresQuery("delete from posts where id = \(id)").affectedRows
    }

    package static func exists(_ id: PostgresUUID) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from posts where id = \(id))").value(Bool.self)
    }

    /// Whether the post exists and a block between the viewer and its author hides it, which
    /// the viewer's own reads cannot tell from a post that is not there.
    static func hiddenByBlock(_ id: PostgresUUID) -> PostgresRead<Bool> {
        PostgresQuery("select app.post_hidden_by_block(\(id))").value(Bool.self)
    }
}
