"""What each hop of the scale-out shape costs, as ratios measured in one run (driven by
bench/hops): the same build served through PgBouncer in transaction mode, and with its reads on
a streaming replica (signed-in reads paying the read-your-writes check), against it connecting
directly to the primary alone; and, given an older build (--before), this build's direct path
against that one's.

Every variant is a `chirp serve` of its own on the benchmark database, all up at once and
idle but for the one being measured; a turn measures each variant in turn with wrk, at the
same concurrency, so a slow spell of the machine lands on all of them."""
import argparse, json, os, re, secrets, statistics, subprocess, sys, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure

WORKLOADS = [
    # name, method, path, authenticated, alternate method
    ("comments", "GET", "/v1/posts/{post}/comments", False, None),
    ("post_anonymous", "GET", "/v1/posts/{post}", False, None),
    ("post_signed_in", "GET", "/v1/posts/{post}", True, None),
    ("feed", "GET", "/v1/feed", True, None),
    # Last: its writes give the viewers write marks, which the reads above then had not.
    ("like_unlike", "PUT", "/v1/posts/{post}/like", True, "DELETE"),
]

def start(name, chirp, database, port, secret, connections, replica=None):
    environment = dict(os.environ, DATABASE_URL=database, JWT_SECRET=secret, HOST="127.0.0.1", PORT=str(port),
                       DATABASE_POOL_SIZE=str(connections), MAX_CONNECTIONS_PER_IP="0", RATE_LIMIT_LOGINS_PER_ADDRESS="1000",
                       LOG_LEVEL="warning", DATABASE_REPLICA_URLS=replica or "")
    log = open(os.path.join(measure.ROOT, "bench/results/hops-%s.log" % name), "w")
    process = subprocess.Popen([chirp, "serve"], env=environment, stdout=subprocess.DEVNULL, stderr=log)
    url = "http://127.0.0.1:%d" % port
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/readyz").read()
            # With a replica, measure once it is in use.
            if replica and not re.search(r"^db_replica_fit\{[^}]*\} 1$", urllib.request.urlopen(url + "/metrics").read().decode(), re.M):
                raise OSError("replica not in use yet")
            return process, url
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("the %s service did not start; see bench/results/hops-%s.log" % (name, name))

def main():
    parser = argparse.ArgumentParser()
    for flag in ["--chirp", "--direct", "--pooled", "--replica", "--admin"]:
        parser.add_argument(flag, required=True)
    parser.add_argument("--before", default="", help="an older build's chirp binary")
    parser.add_argument("--before-commit", default="", help="the commit it was built from")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--turn", type=int, default=8, help="seconds per workload, variant and turn")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(os.path.join(measure.ROOT, "bench/results"), exist_ok=True)

    secret = secrets.token_urlsafe(48)
    # name, binary, primary, replica
    variants = [("direct", args.chirp, args.direct, None), ("pgbouncer", args.chirp, args.pooled, None),
                ("replica", args.chirp, args.direct, args.replica)]
    if args.before:
        variants.append(("before", args.before, args.direct, None))
    services, processes = {}, []
    try:
        for index, (name, chirp, database, replica) in enumerate(variants):
            process, url = start(name, chirp, database, 18191 + index, secret, args.connections, replica)
            processes.append(process)
            services[name] = argparse.Namespace(service=url, admin=args.admin)
        direct = services["direct"]
        tokens = measure.sign_in_viewers(direct)
        posts = measure.psql(args.admin, "select string_agg(md5('post:1:' || i)::uuid::text, ',' order by i) "
                             "from generate_series(1, %d) i" % measure.POSTS).split(",")
        authors = ["demo%d" % i for i in range(measure.VIEWERS + 1, 2 * measure.VIEWERS + 1)]
        commit, uncommitted = measure.checked_out_commit()
        results = {"date": time.strftime("%Y-%m-%d"), "commit": commit, "uncommitted_changes": uncommitted,
                   "before_commit": args.before_commit or None,
                   "connections": args.connections, "turn_s": args.turn, "rounds": args.rounds, "workloads": {}}
        for name, method, path, auth, alternate in WORKLOADS:
            turns = []
            for _ in range(args.rounds):
                turns.append({variant: measure.wrk(services[variant], name, method, path, tokens, posts, authors,
                                                   args.connections, args.turn, auth=auth, alternate=alternate)
                              for variant, _, _, _ in variants})
            def ratio(over, under):
                values = [t[over]["rps"] / t[under]["rps"] for t in turns]
                return {"median": round(statistics.median(values), 3), "range": [round(min(values), 3), round(max(values), 3)]}
            entry = {"endpoint": "%s %s" % (method + ("/" + alternate if alternate else ""), path),
                     "rps": {variant: round(statistics.mean(t[variant]["rps"] for t in turns)) for variant, _, _, _ in variants},
                     "p99": {variant: round(statistics.median(t[variant]["p99"] for t in turns), 2) for variant, _, _, _ in variants},
                     "errors": sum(t[variant]["errors"] for t in turns for variant, _, _, _ in variants),
                     "pgbouncer_over_direct": ratio("pgbouncer", "direct"),
                     "replica_over_direct": ratio("replica", "direct")}
            if args.before:
                entry["direct_over_before"] = ratio("direct", "before")
            results["workloads"][name] = entry
            print("== %s: %s" % (name, json.dumps(entry)), file=sys.stderr)
    finally:
        for process in processes:
            process.terminate()
            process.wait()
    with open(os.path.join(measure.ROOT, "docs/benchmarks/hops.json"), "w") as handle:
        json.dump(results, handle, indent=2, sort_keys=True)
        handle.write("\n")

if __name__ == "__main__":
    main()
