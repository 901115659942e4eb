-- A post, as the service writes it: the triggers push it (or not) to home_timeline.
insert into posts (author_id, body) values ((select app.user_id()), 'Benchmarking the write path') returning id, created_at;
