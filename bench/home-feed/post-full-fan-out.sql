-- The same post, also written to every follower's row of the full fan-out table.
with p as (insert into posts (author_id, body) values ((select app.user_id()), 'Benchmarking the write path')
           returning id, created_at, author_id)
insert into home_feed_alternatives.full_timeline (user_id, created_at, post_id)
select f.follower_id, p.created_at, p.id from p join follows f on f.followee_id = p.author_id;
