import Postgres

/// The SQL of the timelines. Every page is a range scan on a `(created_at desc, id desc)`
/// index, whatever its depth.
package enum TimelineQueries {
    /// Posts of `source` strictly between two positions, newest first, `limit` of them.
    package static func page(of source: TimelineSource, below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresRead<[Post]> {
        query(source, below: upper, above: floor, limit: limit).rows(Post.init(row:))
    }

    private static func query(_ source: TimelineSource, below upper: KeysetPosition, above floor: KeysetPosition, limit: Int) -> PostgresQuery {
        switch source {
        case .global:
            return """
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
                where (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                  and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))
                order by p.created_at desc, p.id desc
                limit \(limit)
                """
        case .author(let username):
            return """
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id
                where p.author_id = (select id from users where username = \(username))
                  and (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                  and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))
                order by p.created_at desc, p.id desc
                limit \(limit)
                """
        case .home:
            // One short range scan per followed author, merged: a page costs at most
            // `limit` rows per author however deep it is.
            return """
                select \(unescaped: Post.columns)
                from (select f.followee_id as author_id from follows f where f.follower_id = (select app.user_id())
                      union all select (select app.user_id())) as followed
                cross join lateral (
                    select * from posts p
                    where p.author_id = followed.author_id
                      and (p.created_at, p.id) < (\(upper.timestamp), \(upper.id))
                      and (p.created_at, p.id) > (\(floor.timestamp), \(floor.id))
                    order by p.created_at desc, p.id desc
                    limit \(limit)
                ) as p
                join users a on a.id = p.author_id
                order by p.created_at desc, p.id desc
                limit \(limit)
                """
        }
    }
}

