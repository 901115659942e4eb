import Postgres

/// The SQL of a user's notifications (`sql/migrations/0027_notifications.sql`). The triggers
/// of their causes write them; a reader only lists them, counts the unread and moves the
/// read mark. The viewer's id is bound, as the home feed's is, and row-level security still
/// limits every table here to the identity's own rows.
package enum NotificationQueries {
    /// A page of the viewer's notifications strictly below `position`, newest first: one
    /// range scan of `notifications_recipient_latest_idx`, then for each entry its newest
    /// actors (an index-only scan of `notification_actors_latest_idx`, stopped at three before
    /// their users are read: a group of thousands of likes costs what one of three does), its
    /// post and its comment, one probe each. One row per notification and shown actor
    /// (`NotificationEntry.entries`).
    package static func page(of viewer: PostgresUUID, below position: KeysetPosition, limit: Int) -> PostgresRead<[NotificationEntry]> {
        PostgresRead("""
            with page as materialized (
                select n.id, n.kind, n.latest_at, n.actor_count, n.post_id, n.comment_id
                from notifications n
                where n.recipient_id = \(viewer) and (n.latest_at, n.id) < (\(position.timestamp), \(position.id))
                order by n.latest_at desc, n.id desc
                limit \(limit)
            )
            select page.id, page.kind, page.latest_at, page.actor_count,
                   coalesce((page.latest_at, page.id) <= (select r.read_at, r.read_id from notification_reads r where r.user_id = \(viewer)), false),
                   actor.*, post.*, comment.*
            from page
            left join lateral (
                select \(unescaped: Profile.columns), na.acted_at
                from (select a.actor_id, a.acted_at from notification_actors a
                      where a.notification_id = page.id
                      order by a.acted_at desc, a.actor_id desc
                      limit \(NotificationEntry.shownActors)) as na
                join users u on u.id = na.actor_id
            ) as actor on true
            left join lateral (
                select \(unescaped: Post.columns) from posts p join users a on a.id = p.author_id where p.id = page.post_id
            ) as post on true
            left join lateral (
                select \(unescaped: Comment.columns) from comments c join users a on a.id = c.author_id where c.id = page.comment_id
            ) as comment on true
            order by page.latest_at desc, page.id desc, actor.acted_at desc, actor.id desc
            """, reader: NotificationEntry.entries(from:))
    }

    /// The unread count stops here: counting is a range scan of the unread entries, and a
    /// badge shows "99+" beyond. Apps ask for it on every refresh, so it costs at most about
    /// five pages of entries; at 1,000 it grew with a popular viewer's backlog (the benchmark's
    /// viewers averaged 159 unread at 100k posts and 814 at 3M, each counted on every request).
    static let unreadCountCap = 100

    /// How many notifications lie above the viewer's read mark, up to `unreadCountCap`: a
    /// range scan of `notifications_recipient_latest_idx` from the mark up (everything when
    /// the viewer never read any).
    package static func unreadCount(of viewer: PostgresUUID) -> PostgresRead<Int> {
        PostgresQuery("""
            with mark as materialized (
                select m.read_at, m.read_id from (
                    select r.read_at, r.read_id from notification_reads r where r.user_id = \(viewer)
                    union all
                    select '-infinity', '00000000-0000-0000-0000-000000000000'
                ) as m
                order by m.read_at desc
                limit 1
            )
            select count(*) from (
                select from notifications n
                where n.recipient_id = \(viewer)
                  and (n.latest_at, n.id) > ((select read_at from mark), (select read_id from mark))
                limit \(unreadCountCap)
            ) as unread
            """).value(Int.self)
    }

    /// Marks read everything at or below `position`: the read mark moves up to it, never down,
    /// so an older listing's cursor cannot unread what a newer one read.
    static func markRead(by viewer: PostgresUUID, upTo position: KeysetPosition) -> PostgresQuery {
        """
        insert into notification_reads (user_id, read_at, read_id)
        values (\(viewer), \(position.timestamp), \(position.id))
        on conflict (user_id) do update set read_at = excluded.read_at, read_id = excluded.read_id
        where (excluded.read_at, excluded.read_id) > (notification_reads.read_at, notification_reads.read_id)
        """
    }

    /// Marks read everything the viewer has been notified of so far: up to their newest
    /// notification, so what arrives later is unread (nothing when there is none).
    static func markAllRead(by viewer: PostgresUUID) -> PostgresQuery {
        """
        insert into notification_reads (user_id, read_at, read_id)
        select \(viewer), n.latest_at, n.id from notifications n
        where n.recipient_id = \(viewer)
        order by n.latest_at desc, n.id desc
        limit 1
        on conflict (user_id) do update set read_at = excluded.read_at, read_id = excluded.read_id
        where (excluded.read_at, excluded.read_id) > (notification_reads.read_at, notification_reads.read_id)
        """
    }
}
