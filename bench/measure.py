#!/usr/bin/env python3
"""Runs each workload through wrk (HTTP) and pgbench (the same SQL), records the run in
docs/benchmarks.json and renders docs/BENCHMARKS.md from it (bench/report.py).

Called by bench/run, which prepares the database and starts the service."""
import argparse, datetime, json, os, platform, re, secrets, statistics, subprocess, sys, tempfile, time, urllib.parse, urllib.request

import report

VIEWERS = 64          # demo1..demo64 sign in; authors are demo65..demo128
POSTS = 1000          # the 1,000 posts workloads pick from (the seed's most liked and commented)
DEEP_PAGE = 10000     # how many posts deep the deep page starts
DATA_TABLES = ("users", "posts", "likes", "follows", "comments")   # the data set's size, as the report gives it
ROOT = report.ROOT    # paths below are the repository's

def http(method, url, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")

def psql(url, sql):
    return subprocess.run(["psql", "-X", "-At", url, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()

def git(*arguments):
    return subprocess.run(["git", "-C", ROOT] + list(arguments), check=True, capture_output=True, text=True).stdout.strip()

def lua_list(values):
    return "{" + ",".join('"%s"' % v for v in values) + "}"

PROGRAMS = ("chirp", "postgres", "wrk", "pgbench")

# Posts whose counter differs from their like rows.
LIKE_COUNT_MISMATCHES = "select count(*) from posts p where like_count <> (select count(*) from likes l where l.post_id = p.id)"

def cpu_ticks():
    """CPU time (clock ticks) used so far by each program that shares the machine."""
    ticks = dict.fromkeys(PROGRAMS, 0)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as handle:
                stat = handle.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        if name in ticks:
            fields = stat[stat.rindex(")") + 2:].split()
            ticks[name] += int(fields[11]) + int(fields[12])
    return ticks

def run_sampled(command, duration):
    """Runs a load generator, and samples every program's CPU time between its first and its
    last second (pgbench's backends exit with it, so their time must be read while they run).
    Returns the output and each program's CPU seconds per second of that window."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    window = max(duration - 2, 1)
    time.sleep(1)
    before, started = cpu_ticks(), time.monotonic()
    time.sleep(window)
    after, elapsed = cpu_ticks(), time.monotonic() - started
    stdout, stderr = process.communicate()
    tick = os.sysconf("SC_CLK_TCK")
    load = {name: (after[name] - before[name]) / tick / elapsed for name in PROGRAMS}
    return process.returncode, stdout, stderr, load

def per_operation(load, rate):
    """CPU microseconds per request or transaction, by program."""
    return {name: round(share * 1e6 / rate, 1) for name, share in load.items() if share > 0} if rate > 0 else {}

def wrk(args, name, method, path, tokens, posts, authors, connections, duration, body=None, auth=False, alternate=None):
    """Returns requests/s, p50 and p99 in ms, and errors (socket errors and non-2xx)."""
    script = """
local tokens = %s
local posts = %s
local authors = %s
local method, template, body, auth, alternate = "%s", "%s", %s, %s, %s
-- Requests are drawn at random from a set formatted once per thread (in init, once wrk
-- knows the Host header), so the load generator spends per request about what pgbench does.
local requests = {}
local function build()
  local path = template:gsub("{post}", posts[math.random(#posts)]):gsub("{author}", authors[math.random(#authors)])
  local headers = {}
  if auth then headers["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] end
  if body then headers["Content-Type"] = "application/json" end
  local verb = method
  if alternate and math.random(2) == 1 then verb = alternate end
  return wrk.format(verb, path, headers, body)
end
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("seed", threads)
end
init = function(args)
  -- Each thread its own sequence: with one seed they would send the same requests in step.
  math.randomseed(seed or 1)
  for i = 1, 4096 do requests[i] = build() end
end
request = function()
  return requests[math.random(#requests)]
end
""" % (lua_list(tokens), lua_list(posts), lua_list(authors), method, path,
       json.dumps(json.dumps(body)) if body is not None else "nil", "true" if auth else "false",
       '"%s"' % alternate if alternate else "nil")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    seconds = int(round(duration))
    code, output, errors_text, load = run_sampled(
        ["wrk", "-t%d" % min(2, connections), "-c%d" % connections, "-d%ds" % seconds, "--latency", "-s", handle.name, args.service], seconds)
    os.unlink(handle.name)
    if code != 0:
        raise SystemExit("wrk failed for %s: %s" % (name, errors_text))
    def latency(percent):
        match = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)" % percent, output, re.M)
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", output))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors += int(non2xx.group(1)) if non2xx else 0
    return {"rps": rps, "p50": latency(50), "p99": latency(99), "errors": errors, "cpu_us": per_operation(load, rps)}

def pgbench(args, scripts, script_dir, connections, duration, posts=POSTS):
    """Transactions per second of the same statements, at the same concurrency."""
    command = ["pgbench", "-n", "-M", "prepared", "-c", str(connections), "-j", "2", "-T", str(int(round(duration))),
               "-D", "bench_users=%d" % VIEWERS, "-D", "bench_posts=%d" % posts]
    for name in scripts:
        command += ["-f", os.path.join(script_dir, name + ".sql")]
        with open(os.path.join(script_dir, name + ".args")) as handle:
            lines = [line for line in handle.read().split("\n") if line]
        command += lines
    # A tenth of the transactions logged with their latency, for the ceiling's p99: enough
    # for a percentile, and little for pgbench to write.
    log_dir = tempfile.mkdtemp(prefix="chirp-pgbench-log-")
    command += ["-l", "--sampling-rate=0.1", "--log-prefix=" + os.path.join(log_dir, "log")]
    command.append(args.database)
    code, stdout, stderr, load = run_sampled(command, int(round(duration)))
    latencies = []
    for name in os.listdir(log_dir):
        with open(os.path.join(log_dir, name)) as handle:
            # client, transaction, latency in µs, script, epoch seconds, µs
            latencies += [int(line.split()[2]) / 1000 for line in handle if line.strip()]
        os.unlink(os.path.join(log_dir, name))
    os.rmdir(log_dir)
    if code != 0:
        raise SystemExit("pgbench failed for %s: %s" % (scripts, stderr))
    tps = float(re.search(r"tps = ([\d.]+)", stdout).group(1))
    latency = float(re.search(r"latency average = ([\d.]+) ms", stdout).group(1))
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99)] if latencies else float("nan")
    return {"tps": tps, "latency_ms": latency, "p99": p99, "cpu_us": per_operation(load, tps)}

def mean_cpu(runs):
    """Each program's CPU µs per operation, averaged over wrk or pgbench turns."""
    return {program: round(sum(run["cpu_us"].get(program, 0) for run in runs) / len(runs), 1) for program in PROGRAMS
            if any(program in run["cpu_us"] for run in runs)}

def pool_comparison(args, tokens, posts, authors, script_dir):
    """The cheap reads at two pool sizes, each against pgbench at as many clients: the
    benchmarked service (its pool set to pgbench's client count above) and a second one left
    at its default pool. A turn runs all four, each service paired with pgbench at its own
    size, so the ratio at the default size is measured, not derived.
    Anonymous reads only: the second service signs its own tokens."""
    port = urllib.parse.urlparse(args.service).port + 1
    url = "http://127.0.0.1:%d" % port
    environment = dict(os.environ, DATABASE_URL=args.database, JWT_SECRET=secrets.token_urlsafe(48), HOST="127.0.0.1",
                       PORT=str(port), MAX_CONNECTIONS_PER_IP="0", LOG_LEVEL=os.environ.get("BENCH_LOG_LEVEL", "info"))
    environment.pop("DATABASE_POOL_SIZE", None)
    with open(os.path.join(ROOT, "bench/results/service-default-pool.log"), "w") as log:
        process = subprocess.Popen([args.chirp, "serve"], env=environment, stdout=subprocess.DEVNULL, stderr=log)
    try:
        for _ in range(50):
            try:
                urllib.request.urlopen(url + "/readyz").read()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise SystemExit("the service at its default pool did not start; see bench/results/service-default-pool.log")
        metrics = urllib.request.urlopen(url + "/metrics").read().decode()
        default_size = int(float(re.search(r"^db_pool_max (\S+)$", metrics, re.M).group(1)))
        default = argparse.Namespace(**dict(vars(args), service=url))
        turn = args.duration / args.rounds
        comparison = {"default_size": default_size, "benchmarked_size": args.connections}
        for name, path in [("comments", "/v1/posts/{post}/comments"), ("profile", "/v1/users/{author}")]:
            turns = []
            for _ in range(args.rounds):
                benchmarked = wrk(args, name, "GET", path, tokens, posts, authors, args.connections, turn)
                benchmarked_ceiling = pgbench(args, [name], script_dir, args.connections, turn)
                at_default = wrk(default, name, "GET", path, tokens, posts, authors, args.connections, turn)
                default_ceiling = pgbench(args, [name], script_dir, default_size, turn)
                turns.append((benchmarked, benchmarked_ceiling, at_default, default_ceiling))
            def median_of(ratio):
                return round(statistics.median(ratio(*t) for t in turns), 3)
            def range_of(ratio):
                values = [ratio(*t) for t in turns]
                return [round(min(values), 3), round(max(values), 3)]
            at_default = lambda b, bc, d, dc: d["rps"] / dc["tps"]
            # The service at its default pool against pgbench at the load's concurrency (as
            # many clients as wrk has connections), the ceiling the targets are set on.
            at_load = lambda b, bc, d, dc: d["rps"] / bc["tps"]
            comparison[name] = {
                "benchmarked_rps": statistics.mean(b["rps"] for b, _, _, _ in turns),
                "default_rps": statistics.mean(d["rps"] for _, _, d, _ in turns),
                "speedup": median_of(lambda b, bc, d, dc: d["rps"] / b["rps"]),
                "database_benchmarked_tps": statistics.mean(bc["tps"] for _, bc, _, _ in turns),
                "database_default_tps": statistics.mean(dc["tps"] for _, _, _, dc in turns),
                "database_speedup": median_of(lambda b, bc, d, dc: dc["tps"] / bc["tps"]),
                "benchmarked_ratio": median_of(lambda b, bc, d, dc: b["rps"] / bc["tps"]),
                "default_ratio": median_of(at_default),
                "default_ratio_range": range_of(at_default),
                "default_load_ratio": median_of(at_load),
                "default_load_ratio_range": range_of(at_load),
                "benchmarked_database_us": statistics.mean(b["cpu_us"].get("postgres", 0) for b, _, _, _ in turns),
                # Shaped like a workload's, for the report's `service_budget`.
                "default": {"cpu_us": mean_cpu([d for _, _, d, _ in turns]),
                            "ceiling_cpu_us": mean_cpu([dc for _, _, _, dc in turns])},
                "errors": sum(b["errors"] + d["errors"] for b, _, d, _ in turns)}
            print("   pool: %s x%.2f at the default pool; ratio %.3f at %d on both sides" % (
                name, comparison[name]["speedup"], comparison[name]["default_ratio"], default_size), file=sys.stderr)
    finally:
        process.terminate()
        process.wait()
    return comparison

def rss_mib(pid):
    with open("/proc/%d/status" % pid) as handle:
        return int(re.search(r"VmRSS:\s+(\d+) kB", handle.read()).group(1)) / 1024

# What a run rewrites: changing them does not change what is measured (one growth run's
# output, in particular, is no change to the build the next size's run measures).
RUN_OUTPUTS = ("docs/benchmarks.json", "docs/BENCHMARKS.md", "docs/benchmarks/growth-1m.json",
               "docs/benchmarks/growth-3m.json", "docs/benchmarks/hops.json")

def checked_out_commit():
    """The commit the measured build comes from, and whether the working tree differs from it
    (besides the run's own outputs); None and False outside a git checkout."""
    try:
        changes = git("status", "--porcelain", "--untracked-files=no", "--", ".", *(":(exclude)" + path for path in RUN_OUTPUTS))
        return git("rev-parse", "--short=12", "HEAD"), bool(changes)
    except (OSError, subprocess.CalledProcessError):
        return None, False

def data_set_rows(admin):
    """[table, rows] for each table of the data set, as the run starts."""
    counts = psql(admin, "select " + ", ".join("(select count(*) from %s)" % table for table in DATA_TABLES)).split("|")
    return [[table, int(count)] for table, count in zip(DATA_TABLES, counts)]

# The users at the follow graph's extremes, by their exact counters; ties go to the first
# username. The popular authors are seeded as demo1..demo3, and the heaviest followers fall
# where the seed puts them, so every one of them is found here rather than assumed.
SEEDED_USERS = """
with cut as (select percentile_disc(0.5) within group (order by following_count) as median,
                    percentile_disc(0.99) within group (order by following_count) as p99 from users)
(select 'median_follower', %(columns)s from users, cut where following_count = median order by username limit 1)
union all (select 'p99_follower', %(columns)s from users, cut where following_count = p99 order by username limit 1)
union all (select 'heaviest_follower', %(columns)s from users order by following_count desc, username limit 1)
union all (select 'most_followed_author', %(columns)s from users where post_count > 0
           order by follower_count desc, username limit 1)
union all (select 'author_below_threshold', %(columns)s from users where post_count > 0 and follower_count < %(threshold)d
           order by follower_count desc, username limit 1)
union all (select 'median_author', %(columns)s from users,
             (select percentile_disc(0.5) within group (order by follower_count) as median from users where post_count > 0) cut
           where post_count > 0 and follower_count = median order by username limit 1)
"""

def seeded_users(admin, threshold):
    """{role: {username, id, following, followers, posts}} for the median, the 99th-percentile
    and the heaviest follower, the most followed author, the most followed author below
    `threshold` followers (left out when no author is below it), and an author of the median
    following among authors."""
    fields = ("username", "id", "following", "followers", "posts")
    columns = "username, id, following_count, follower_count, post_count"
    found = {}
    for line in psql(admin, SEEDED_USERS % {"columns": columns, "threshold": threshold}).splitlines():
        role, username, user_id, *counts = line.split("|")
        found[role] = dict(zip(fields, [username, user_id] + [int(count) for count in counts]))
    return found

def fanout_threshold(admin):
    """The follower count at which an author's posts stop being pushed to home timelines
    (migration 0012): the run records the most followed author below it, the costliest push."""
    return int(psql(admin, "select app.home_timeline_threshold()").strip())

def home_timeline_size(admin):
    """Rows and bytes (table and index) of home_timeline, the fan-out's cost in storage."""
    rows, size = psql(admin, "select count(*), pg_total_relation_size('home_timeline') from home_timeline").strip().split("|")
    return {"rows": int(rows), "bytes": int(size)}

# How many of the workloads' first posts have a full first page of comments (20 top-level
# ones), up to the first that has not: the comments page is read on those alone, so it is a
# full page at every size, as a feed page is. The seed comments its first posts most, and at
# 100k posts only a few dozen fill a page (the first 1,000 held 5.6 comments a page there,
# against 16.8 at 1M and 19.9 at 3M).
FULL_COMMENT_PAGES = ("select coalesce(min(i) - 1, %d) from (select i, count(c.id) as n from generate_series(1, %d) i "
                      "left join comments c on c.post_id = md5('post:1:' || i)::uuid and c.parent_id is null group by i) s "
                      "where n < 20" % (POSTS, POSTS))

def run_description(args):
    """What a run's figures depend on besides the code: when and where it ran, which commit,
    on how much data (and who stands at its extremes), for how long, and the targets its
    results are held to."""
    commit, uncommitted_changes = checked_out_commit()
    threshold = fanout_threshold(args.admin)
    return {"date": datetime.date.today().isoformat(), "commit": commit, "uncommitted_changes": uncommitted_changes,
            "machine": "%s, %d cores, %s" % (platform.machine(), os.cpu_count(), platform.release()),
            "cores": os.cpu_count(), "size": args.size, "data_rows": data_set_rows(args.admin),
            "fanout_threshold": threshold, "home_timeline": home_timeline_size(args.admin),
            "seeded_users": seeded_users(args.admin, threshold),
            "comment_page_posts": int(psql(args.admin, FULL_COMMENT_PAGES)),
            "connections": args.connections, "duration_s": args.duration, "rounds": args.rounds,
            "deep_page_posts": DEEP_PAGE, "targets": report.TARGETS}

# Words of every frequency for search: the seed's most common word after `new`, the rarest
# word it used (found by its document count), and a word nobody used. The rarest word is taken
# from outside the posts the workloads like and comment on: each like writes a new version of
# its post, and until vacuum a search for a word of that post rechecks every dead version (a
# word of the hot post alone read 16,000 of them).
COMMON_WORD = "swift"
# The statement app.planned_rows estimates for a post search (EstimatedMatches.posts).
SEARCH_ESTIMATED = "select from posts where search_vector @@ $1[1]::tsquery"
UNUSED_WORD = "zyxwvutq"
RAREST_WORD = ("select s.word from ts_stat('select search_vector from posts') s where s.word not in ("
               "select unnest(tsvector_to_array(p.search_vector)) from posts p "
               "where p.id in (select md5('post:1:' || i)::uuid from generate_series(1, %d) i)) "
               "order by s.ndoc, s.word limit 1")
# Concurrent posting by one author queues on the author's counter row whatever the fan-out,
# so the posting workloads run at fewer connections: their p99s compare the fan-out's cost.
POSTING_CONNECTIONS = 4
# Seconds of a tail workload sent before its measured turns.
WARM_UP_S = 1

def sign_in_viewers(args):
    """Access tokens for the benchmark's viewers, demo1 to demo64."""
    return [sign_in(args, "demo%d" % i) for i in range(1, VIEWERS + 1)]

def sign_in(args, username):
    return http("POST", args.service + "/v1/auth/login", {"username": username, "password": "chirp-demo-password"})["accessToken"]

def tail_workloads(args, users, part):
    """The requests whose cost could grow with the graph or the data, as (name, role, method,
    path, body, connections), `role` naming the seeded user who sends it (None: anonymous).
    `part` "searches": a search for a common, the rarest and an unused word in both orders, on
    the seeded posts. "rest": the home feed of the median, 99th-percentile and heaviest
    follower, and a post by a median author, by the most followed author and by the most
    followed below the fan-out threshold. "behind_writes": the rest, then the common word by
    time again, now that the write workloads' posts (none with a seeded word) lie above its
    matches."""
    def search(kind, word, order):
        return ("search_%s_%s" % (kind, order), None, "GET", "/v1/search/posts?q=%s&sort=%s" % (word, order), None,
                args.connections)
    if part == "searches":
        rare = psql(args.admin, RAREST_WORD % POSTS)
        return [search(kind, word, order)
                for kind, word in (("common", COMMON_WORD), ("rare", rare), ("unused", UNUSED_WORD))
                for order in ("recent", "top")]
    feeds = [("feed_" + role.split("_")[0], role, "GET", "/v1/feed", None, args.connections)
             for role in ("median_follower", "p99_follower", "heaviest_follower") if role in users]
    posts = [("post_by_" + role, role, "POST", "/v1/posts", {"body": "Benchmarking the write path"}, POSTING_CONNECTIONS)
             for role in ("median_author", "most_followed_author", "author_below_threshold") if role in users]
    return feeds + posts + ([search("common_behind_writes", COMMON_WORD, "recent")] if part == "behind_writes" else [])

def against_comments(args, workload, tokens, posts, authors):
    """A workload in turns with the comments page of `posts`, each turn paired with the
    comments turn after it at the same concurrency: its req/s, latency and errors, the
    comments page's req/s, and the median pair's ratio of the two."""
    name, role, method, path, body, connections = workload
    turn = args.duration / args.rounds
    # An untimed second first: each of the pool's connections prepares the workload's
    # statements and plans its functions on its first request, which is not the tail measured
    # here (a search's first turn after a start had a p99 of 70 ms, the next ones 18-24 ms).
    wrk(args, name, method, path, tokens, posts, authors, connections, WARM_UP_S, body, auth=bool(tokens))
    pairs = [(wrk(args, name, method, path, tokens, posts, authors, connections, turn, body, auth=bool(tokens)),
              wrk(args, "comments", "GET", "/v1/posts/{post}/comments", [], posts, authors, connections, turn))
             for _ in range(args.rounds)]
    ratios = sorted(measured["rps"] / reference["rps"] for measured, reference in pairs)
    return {"endpoint": endpoint(method, None, path), "user": role, "connections": connections,
            "rps": sum(m["rps"] for m, _ in pairs) / len(pairs), "p50": sum(m["p50"] for m, _ in pairs) / len(pairs),
            "p99": max(m["p99"] for m, _ in pairs), "p99_turns": [m["p99"] for m, _ in pairs],
            "errors": sum(m["errors"] for m, _ in pairs),
            "comments_rps": sum(r["rps"] for _, r in pairs) / len(pairs),
            "comments_p99": max(r["p99"] for _, r in pairs),
            "to_comments": round(statistics.median(ratios), 3), "to_comments_range": [round(ratios[0], 3), round(ratios[-1], 3)]}

# How many posts lie above the common word's newest match: what a search for it by time
# finds in its way.
POSTS_ABOVE_COMMON_WORD = ("select count(*) from posts where created_at > (select max(created_at) from posts "
                           "where search_vector @@ to_tsquery('simple', '%s'))" % COMMON_WORD)

def measure_tail(args, users, posts, authors, part):
    """The tail workloads of `part` against the comments page (see `tail_workloads`)."""
    tail = {}
    for workload in tail_workloads(args, users, part):
        name, role = workload[0], workload[1]
        print("== %s" % name, file=sys.stderr)
        tokens = [sign_in(args, users[role]["username"])] if role else []
        tail[name] = against_comments(args, workload, tokens, posts, authors)
        if name.startswith("search_common_behind_writes"):
            tail[name]["posts_above_match"] = int(psql(args.admin, POSTS_ABOVE_COMMON_WORD))
        print("   %.0f req/s, p99 %.2f ms, errors %d; comments %.0f req/s; ratio %.2f" % (
            tail[name]["rps"], tail[name]["p99"], tail[name]["errors"], tail[name]["comments_rps"], tail[name]["to_comments"]),
            file=sys.stderr)
    return tail

def deep_cursor(args):
    """The cursor of the global timeline DEEP_PAGE posts down, as a client paging reaches it."""
    cursor, depth = None, 0
    while depth < DEEP_PAGE:
        page = http("GET", args.service + "/v1/posts?limit=50" + ("&cursor=" + cursor if cursor else ""))
        cursor, depth = page["nextCursor"], depth + len(page["items"])
    return cursor

def sample_posts(args):
    """The POSTS posts the workloads pick from, most liked and commented first."""
    return psql(args.admin, "select string_agg(md5('post:1:' || i)::uuid::text, ',' order by i) "
                "from generate_series(1, %d) i" % POSTS).split(",")

def paired_growth(args, reference, workloads, authors):
    """Growth within one run: each read at this size in turns with the same read at the
    reference size (a second service on that database), each turn paired with the reference's
    turn after it, so that the machine's drift lands on both. Every side signs in its own
    viewers and picks from its own posts, deep cursor, comment pages, seeded users and rarest
    word. Returns the reads and the tail's reads, each with the median pair's ratio."""
    sides = []
    for side in (args, reference):
        posts = sample_posts(side)
        threshold = fanout_threshold(side.admin)
        sides.append({"args": side, "tokens": sign_in_viewers(side), "posts": posts, "cursor": deep_cursor(side),
                      "commented": posts[:max(1, int(psql(side.admin, FULL_COMMENT_PAGES)))],
                      "users": seeded_users(side.admin, threshold)})
    turn = args.duration / args.rounds

    def pairs_of(name, requests):
        """`requests(side)` gives a side's wrk arguments; the warm-up second, then the turns."""
        for side in sides:
            wrk(side["args"], name, *requests(side)[:-1], WARM_UP_S, **requests(side)[-1])
        pairs = [tuple(wrk(side["args"], name, *requests(side)[:-1], turn, **requests(side)[-1]) for side in sides)
                 for _ in range(args.rounds)]
        ratios = sorted(measured["rps"] / at_reference["rps"] for measured, at_reference in pairs)
        measured = {"rps": statistics.mean(m["rps"] for m, _ in pairs), "p50": statistics.mean(m["p50"] for m, _ in pairs),
                    "p99": max(m["p99"] for m, _ in pairs), "errors": sum(m["errors"] + r["errors"] for m, r in pairs),
                    "reference_rps": statistics.mean(r["rps"] for _, r in pairs),
                    "reference_p99": max(r["p99"] for _, r in pairs),
                    "growth": round(statistics.median(ratios), 3), "growth_range": [round(ratios[0], 3), round(ratios[-1], 3)]}
        print("   %.0f req/s against %.0f at %s; ratio %.2f (%.2f-%.2f)" % (
            measured["rps"], measured["reference_rps"], reference.size, measured["growth"], ratios[0], ratios[-1]), file=sys.stderr)
        return measured

    results = {}
    for name, kind, method, path, body, auth, alternate, scripts, post_count in workloads:
        if kind != "read":
            continue
        print("== %s" % name, file=sys.stderr)
        def requests(side, path=path, auth=auth, post_count=post_count, name=name):
            posts = side["commented"] if name == "comments" else side["posts"][:post_count]
            return (method, path.replace("{cursor}", side["cursor"]), side["tokens"], posts, authors, args.connections,
                    {"auth": auth})
        results[name] = dict(pairs_of(name, requests), kind=kind, endpoint=endpoint(method, alternate, path))
    tail = {}
    for part in ("searches", "rest"):
        # The same workloads at each side: the rarest word and the seeded users are the side's own.
        at_side = [tail_workloads(side["args"], side["users"], part) for side in sides]
        for index, workload in enumerate(at_side[0]):
            name, role, method, path = workload[:4]
            if method != "GET":
                continue
            print("== %s" % name, file=sys.stderr)
            own = {id(side): workloads_of_side[index] for side, workloads_of_side in zip(sides, at_side)}
            signed = {id(side): [sign_in(side["args"], side["users"][role]["username"])] if role else [] for side in sides}
            def requests(side, own=own, signed=signed):
                workload = own[id(side)]
                return (workload[2], workload[3], signed[id(side)], side["commented"], authors, workload[5],
                        {"auth": bool(signed[id(side)])})
            tail[name] = dict(pairs_of(name, requests), endpoint=endpoint(method, None, path), user=role,
                              connections=workload[5])
    results["tail"] = tail
    results["reference"] = {"size": reference.size, "data_rows": data_set_rows(reference.admin),
                            "seeded_users": sides[1]["users"]}
    return results

def endpoint(method, alternate, path):
    """How the report names a workload's requests, e.g. `PUT/DELETE /v1/posts/{post}/like`."""
    return "%s %s" % (method + ("/" + alternate if alternate else ""), path)

def main():
    parser = argparse.ArgumentParser()
    for flag in ["--chirp", "--scripts", "--service", "--database", "--admin", "--size"]:
        parser.add_argument(flag, required=True)
    parser.add_argument("--service-pid", type=int, required=True)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--duration", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=6, help="turns the service and its ceiling take within the duration")
    parser.add_argument("--reference-service", help="growth: the service on the smaller database, read in turns with this one")
    parser.add_argument("--reference-admin")
    parser.add_argument("--reference-size")
    args = parser.parse_args()
    c, d = args.connections, args.duration

    print("== preparing: sign-ins, sample ids, the deep cursor", file=sys.stderr)
    tokens = sign_in_viewers(args)
    posts = sample_posts(args)
    authors = ["demo%d" % i for i in range(VIEWERS + 1, 2 * VIEWERS + 1)]
    cursor = deep_cursor(args)
    micros, deep_id = psql(args.admin, "select (extract(epoch from created_at) * 1000000)::int8, id from posts "
                           "order by created_at desc, id desc offset %d limit 1" % (DEEP_PAGE - 1)).split("|")
    script_dir = tempfile.mkdtemp(prefix="chirp-ceilings-")
    # The service keeps a searched word's estimate for a minute (SearchEstimates), so all but
    # its first search pass it: the ceiling's search passes it too.
    estimate = psql(args.admin, "select app.planned_rows('%s', array[websearch_to_tsquery('simple', '%s')::text])"
                    % (SEARCH_ESTIMATED, COMMON_WORD))
    subprocess.run([args.scripts, script_dir, "--seed", "1", "--deep", micros, deep_id, "--search-estimate", estimate], check=True)
    # The signed-in ceilings require their viewer's session live, as the service's requests do.
    with open(os.path.join(script_dir, "viewer_sessions.args")) as handle:
        definitions = [line for line in handle.read().split("\n") if line]
    subprocess.run(["pgbench", "-n", "-M", "extended", "-t", "1", "-f", os.path.join(script_dir, "viewer_sessions.sql"),
                    "-D", "bench_users=%d" % VIEWERS] + definitions + [args.admin], check=True, capture_output=True)

    results = dict(run_description(args), idle_rss_mib=rss_mib(args.service_pid))
    # The posts whose comments page is read, the reference of the tail's ratios among them.
    commented = posts[:max(1, results["comment_page_posts"])]
    for role, user in sorted(results["seeded_users"].items()):
        print("   %s: %s, following %d, followed by %d" % (role, user["username"], user["following"], user["followers"]), file=sys.stderr)
    # The data set is built once and kept between runs, so the like-count invariant is counted
    # before the runs too: what this run changed is the difference.
    results["like_count_mismatches_before"] = int(psql(args.admin, LIKE_COUNT_MISMATCHES))
    # The service's cost for a request that does nothing (no database, no JSON): the part of
    # every request's cost no endpoint can go below, for the budgets in the report.
    print("== healthz", file=sys.stderr)
    results["healthz"] = wrk(args, "healthz", "GET", "/healthz", tokens, posts, authors, c, 5)
    workloads = [
        # name, kind, method, path, body, auth, alternate method, ceiling scripts, posts to pick from
        ("feed", "read", "GET", "/v1/feed", None, True, None, ["feed"], POSTS),
        ("feed_deep", "read", "GET", "/v1/posts?cursor={cursor}", None, False, None, ["feed_deep"], POSTS),
        ("global", "read", "GET", "/v1/posts", None, False, None, ["global"], POSTS),
        ("explore", "read", "GET", "/v1/explore", None, False, None, ["explore"], POSTS),
        ("comments", "read", "GET", "/v1/posts/{post}/comments", None, False, None, ["comments"], len(commented)),
        ("profile", "read", "GET", "/v1/users/{author}", None, False, None, ["profile"], POSTS),
        ("user_posts", "read", "GET", "/v1/users/{author}/posts", None, False, None, ["user_posts"], POSTS),
        ("followers", "read", "GET", "/v1/users/{author}/followers", None, False, None, ["followers"], POSTS),
        ("notifications", "read", "GET", "/v1/notifications", None, True, None, ["notifications"], POSTS),
        ("unread_count", "read", "GET", "/v1/notifications/unread-count", None, True, None, ["unread_count"], POSTS),
        ("search", "read", "GET", "/v1/search/posts?q=swift", None, False, None, ["search"], POSTS),
        ("like_unlike", "write", "PUT", "/v1/posts/{post}/like", None, True, "DELETE", ["like", "unlike"], POSTS),
        ("like_unlike_hot", "write", "PUT", "/v1/posts/{post}/like", None, True, "DELETE", ["like", "unlike"], 1),
        ("comment", "write", "POST", "/v1/posts/{post}/comments", {"body": "Benchmarking the comment path"}, True, None, ["comment"], POSTS),
        ("post", "write", "POST", "/v1/posts", {"body": "Benchmarking the write path"}, True, None, ["post"], POSTS),
        ("follow_unfollow", "write", "PUT", "/v1/users/{author}/follow", None, True, "DELETE", ["follow", "unfollow"], POSTS),
    ]
    only = [name for name in os.environ.get("BENCH_ONLY", "").split(",") if name]
    measures_tail = not only or "tail" in only
    if os.environ.get("BENCH_GROWTH") == "1":
        reference = argparse.Namespace(**dict(vars(args), service=args.reference_service, admin=args.reference_admin,
                                              size=args.reference_size))
        results.update(paired_growth(args, reference, workloads, authors))
        with open(report.growth_json(args.size), "w") as handle:
            json.dump(results, handle, indent=2, sort_keys=True)
        return
    tail = {}
    for name, kind, method, path, body, auth, alternate, scripts, post_count in workloads:
        if only and name not in only:
            continue
        if kind == "write" and measures_tail and not tail:
            # The searches before the first write: every write workload's posts lack the
            # seeded words, and hundreds of thousands of them would sit above every match.
            tail.update(measure_tail(args, results["seeded_users"], commented, authors, "searches"))
            # Access tokens last 15 minutes, less than the reads and the searches take.
            tokens = sign_in_viewers(args)
        print("== %s" % name, file=sys.stderr)
        chosen = posts[:post_count]
        # The service and its ceiling take turns, so that a drift in the machine or the data
        # (autovacuum, a neighbour's burst) lands on both rather than on one of them.
        rounds = []
        for _ in range(args.rounds):
            rounds.append((wrk(args, name, method, path.replace("{cursor}", cursor), tokens, chosen, authors, c, d / args.rounds,
                               body, auth, alternate),
                           pgbench(args, scripts, script_dir, c, d / args.rounds, post_count)))
        http_result = {"rps": sum(h["rps"] for h, _ in rounds) / len(rounds),
                       "p50": sum(h["p50"] for h, _ in rounds) / len(rounds),
                       "p99": max(h["p99"] for h, _ in rounds),
                       "errors": sum(h["errors"] for h, _ in rounds)}
        ceiling = {"tps": sum(p["tps"] for _, p in rounds) / len(rounds), "p99": max(p["p99"] for _, p in rounds)}
        # Each turn of the service is paired with the ceiling's turn right after it, and the
        # ratio is the median of the pairs': the machine's speed drifts by a third within a
        # minute (wrk's own CPU per request moves as much), which a pair mostly shares.
        pair_ratios = sorted(h["rps"] / p["tps"] for h, p in rounds)
        results[name] = dict(http_result, kind=kind, endpoint=endpoint(method, alternate, path),
                             ceiling_tps=ceiling["tps"], ceiling_p99=round(ceiling["p99"], 2),
                             ratio=round(statistics.median(pair_ratios), 3),
                             ratio_range=[round(pair_ratios[0], 3), round(pair_ratios[-1], 3)],
                             cpu_us=mean_cpu([h for h, _ in rounds]), ceiling_cpu_us=mean_cpu([p for _, p in rounds]))
        print("   %.0f req/s, p50 %.2f ms, p99 %.2f ms, errors %d; ceiling %.0f tps; ratio %.2f" % (
            http_result["rps"], http_result["p50"], http_result["p99"], http_result["errors"], ceiling["tps"], results[name]["ratio"]),
            file=sys.stderr)

    if measures_tail:
        if not tail:
            tail.update(measure_tail(args, results["seeded_users"], commented, authors, "searches"))
        # The write workloads' follows and unfollows move follower counts by one here and there:
        # chosen at the start, the author below the threshold reached it before posting in two
        # runs, and was measured pulled. Chosen again now, nothing changes a follow before they post.
        results["seeded_users"] = seeded_users(args.admin, results["fanout_threshold"])
        for role, user in sorted(results["seeded_users"].items()):
            print("   %s: %s, following %d, followed by %d" % (role, user["username"], user["following"], user["followers"]),
                  file=sys.stderr)
        tail.update(measure_tail(args, results["seeded_users"], commented, authors, "behind_writes"))
        results["tail"] = tail

    if only:
        # A partial run is for working on a few workloads: it leaves the published report alone.
        with open(os.path.join(ROOT, "bench/results/partial.json"), "w") as handle:
            json.dump(results, handle, indent=2, sort_keys=True)
        return

    print("== keyset depth, offset contrast, profile concurrency, memory", file=sys.stderr)
    # These compare within one program, so they need no long alternation.
    extra = min(d, 10)
    results["offset_deep_ceiling"] = pgbench(args, ["offset_deep"], script_dir, c, extra)
    results["keyset_deep_ceiling"] = pgbench(args, ["feed_deep"], script_dir, c, extra)
    results["depth_p99_ratio"] = round(results["feed_deep"]["p99"] / results["global"]["p99"], 3)
    # Turns again, and the median of each: one 10 s run at a single connection swings by half
    # when a background job (explore's ranking) happens to fall into it.
    profile_p50s, posts_p50s = [], []
    for _ in range(5):
        profile_p50s.append(wrk(args, "profile", "GET", "/v1/users/{author}", tokens, posts, authors, 1, extra / 5)["p50"])
        posts_p50s.append(wrk(args, "user_posts", "GET", "/v1/users/{author}/posts", tokens, posts, authors, 1, extra / 5)["p50"])
    alone_profile = {"p50": statistics.median(profile_p50s)}
    alone_posts = {"p50": statistics.median(posts_p50s)}
    alone_reads = pgbench(args, ["profile"], script_dir, 1, extra)
    results["profile_concurrency"] = {
        "profile_p50_ms": alone_profile["p50"], "posts_read_p50_ms": alone_posts["p50"],
        "ratio_to_slower_read": round(alone_profile["p50"] / alone_posts["p50"], 3),
        "both_reads_sequential_ms": alone_reads["latency_ms"]}
    results["like_count_mismatches"] = int(psql(args.admin, LIKE_COUNT_MISMATCHES))
    print("== pool size", file=sys.stderr)
    results["pool"] = pool_comparison(args, tokens, posts, authors, script_dir)
    for connections in (64, 512):
        process = subprocess.Popen(["wrk", "-t2", "-c%d" % connections, "-d%ds" % extra, args.service + "/v1/posts"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(extra * 0.7)
        results["rss_mib_%d" % connections] = rss_mib(args.service_pid)
        process.wait()

    with open(report.RESULTS_JSON, "w") as handle:
        json.dump(results, handle, indent=2, sort_keys=True)
    report.write_report(results)
    print("feed ratio: %.2f" % results["feed"]["ratio"])

if __name__ == "__main__":
    main()
