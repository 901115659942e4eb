import Postgres

/// The SQL of single posts.
package enum PostQueries {
    /// The new post, as the list shows it.
    package static func create(by author: PostgresUUID, body: String) -> PostgresRead<Post> {
        PostgresQuery("""
            with p as (insert into posts (author_id, body) values (\(author), \(body)) returning *)
            select \(unescaped: Post.columns) from p join users a on a.id = p.author_id
            """).onlyRow(Post.init(row:))
    }

    static func post(_ id: PostgresUUID) -> PostgresRead<Post?> {
        PostgresQuery("select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id where p.id = \(id)")
            .firstRow(Post.init(row:))
    }

    /// The delete policy lets only the author see the row: anyone else's delete finds nothing.
    static func delete(_ id: PostgresUUID) -> PostgresRead<Int> {
        PostgresQuery("delete from posts where id = \(id)").affectedRows
    }

    package static func exists(_ id: PostgresUUID) -> PostgresRead<Bool> {
        PostgresQuery("select exists (select from posts where id = \(id))").value(Bool.self)
    }
}
