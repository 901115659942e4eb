#!/usr/bin/env python3
"""Renders docs/BENCHMARKS.md from one run's JSON, and from nothing else.

    python3 bench/report.py [RUN_JSON [REPORT_MD]]

re-renders the report without measuring (by default docs/benchmarks.json into
docs/BENCHMARKS.md); bench/measure.py calls `write_report` at the end of a full run. Every
figure and every verdict on the page comes from the JSON; the words around them are either
true of every run or chosen by what the JSON holds."""
import json, os, sys, textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_JSON = os.path.join(ROOT, "docs/benchmarks.json")
REPORT_MD = os.path.join(ROOT, "docs/BENCHMARKS.md")

# What a run is held to. measure.py records these in the run's JSON ("targets"); a JSON from
# before it did is judged by them as they stand here.
TARGETS = {
    "read": 0.75, "write": 0.6,                                    # least ratio to the ceiling, by kind
    "targeted_reads": ["feed", "explore", "comments", "profile"],  # the reads held to it; every write is
    "depth_p99_ratio": 1.2,          # at most: a deep page's p99 over the first page's
    "profile_to_slower_read": 1.2,   # at most: a profile's p50 over its slower read's alone
    "rss_mib_64": 64,                # at most: the service's memory under 64 connections, MiB
    # The graph's tail, against the service's own comments page:
    "tail_to_comments": {"feed_median": 0.5, "feed_heaviest": 0.4, "search": 0.4},  # least ratio
    "tail_search_p99_ms": 50,        # at most: any search's p99
    "tail_post_p99_over_median": 2,  # at most: a heavy author's posting p99 over a median author's
    "growth_largest_over_smallest": 0.8,  # least: every read's req/s at 3M posts over at 100k
}
GROWTH_SIZES = ["1m", "3m"]   # BENCH_SIZE values of growth runs (each against 100k), smallest first
DATABASE_BOUND_SHARE = 0.9   # PostgreSQL's least share of a request's CPU for it to set the ratio
TIGHTEST_BUDGETS = 3         # how many targeted workloads the budget sentence names


# Reading the run

def targets_of(results):
    return results.get("targets", TARGETS)

def workload_target(results, name, value):
    """The ratio `name` must reach, or None for a read the targets do not name."""
    targets = targets_of(results)
    if value["kind"] == "write" or name in targets["targeted_reads"]:
        return targets[value["kind"]]
    return None

def workloads(results):
    """(name, figures) of every workload measured against a ceiling: reads, then writes; in
    each, the targeted ones first."""
    measured = [(name, value) for name, value in results.items() if isinstance(value, dict) and "ratio" in value]
    return sorted(measured, key=lambda item: (item[1]["kind"], workload_target(results, *item) is None, item[0]))

def targeted_workloads(results):
    return [(name, value) for name, value in workloads(results) if workload_target(results, name, value) is not None]

def service_budget(value, target):
    """The CPU µs per request the service may spend for the workload to reach `target` of its
    ceiling: the cores serve requests at about their total cost, so the total behind the
    service may be the ceiling's over the target, less what PostgreSQL and wrk spend."""
    service, ceiling = value["cpu_us"], value["ceiling_cpu_us"]
    return sum(ceiling.values()) / target - service.get("postgres", 0) - service.get("wrk", 0)

def spent_of_budget(name, value, target):
    """What the service spent per request against its budget for `target`, in words."""
    return "%s %.0f µs (budget %.0f)" % (code(name), value["cpu_us"].get("chirp", 0), service_budget(value, target))

def database_share(value):
    """PostgreSQL's share of all the CPU spent per request behind the service."""
    total = sum(value["cpu_us"].values())
    return value["cpu_us"].get("postgres", 0) / total if total else 0


# Words

def meets(value, target, at_most=False):
    return value <= target if at_most else value >= target

def verdict(value, target, at_most=False):
    return "met" if meets(value, target, at_most) else "**not met**"

def listing(items):
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

def code(name):
    return "`%s`" % name

def paragraph(text):
    return textwrap.fill(text, 100, break_on_hyphens=False)

def bullet(text):
    return textwrap.fill(text, 100, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)

def table(header, rows):
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(row) + " |" for row in rows]

def ratio_range(low_high):
    return "%.3f-%.3f" % tuple(low_high)

def turns_text(results):
    rounds = results["rounds"]
    return "the median of the %d pairs' ratios" % rounds if rounds > 1 else "from a single pair"


# Sections

def run_line(results):
    commit = results.get("commit")
    commit_text = "commit %s%s" % (commit, " with uncommitted changes" if results.get("uncommitted_changes") else "") \
        if commit else "a commit not recorded"
    rows = results.get("data_rows")
    data = " (%s)" % ", ".join("{:,} {}".format(count, table_name) for table_name, count in rows) if rows else ""
    return paragraph("Run of %s, at %s, on %s. Data set `%s`%s; %d connections; %d s per workload and side, in %d "
                     "turns." % (results["date"], commit_text, results["machine"], results["size"], data,
                                 results["connections"], results["duration_s"], results["rounds"]))

def running_section():
    return ["## Running it", "", "```sh",
            "bench/run                                    # measure, and write docs/benchmarks.json and this page",
            "BENCH_SIZE=100k bench/run                    # on a tenth of the data: quicker (also 1m, the default, and 3m)",
            "BENCH_ONLY=comments,profile bench/run        # only those workloads, into bench/results/partial.json",
            "BENCH_DURATION=10 BENCH_ROUNDS=2 bench/run   # seconds per workload and side, in how many turns",
            "BENCH_GROWTH=1 BENCH_SIZE=3m bench/run       # the reads only, for the growth table below",
            "bench/home-feed-alternatives                 # the home feed's designs against each other (docs/HOME_FEED.md)",
            "python3 bench/report.py                      # render this page again from docs/benchmarks.json",
            "```", "",
            paragraph("`bench/run` builds release binaries, seeds each size once as `chirp seed --benchmark` does, "
                      "gives PostgreSQL a quarter of the machine's memory for shared buffers (`BENCH_PG_SHARED_BUFFERS`), "
                      "and keeps every core busy: use an idle machine. A rerun with no code change is not a commit; "
                      "past runs are in [benchmarks/HISTORY.md](benchmarks/HISTORY.md).")]

def comparison_section(results):
    targets = targets_of(results)
    return ["## What it compares", "",
            paragraph("`wrk` loads each endpoint; its **ceiling** is `pgbench -M prepared` running the same "
                      "statements in the same transactions (from `chirp-bench-scripts`), as many clients as wrk has "
                      "connections, in turns; the **ratio** is requests/s over its transactions/s, %s. Targets: %s "
                      "at least %.2f of their ceiling, every write at least %.2f; the other reads have none." % (
                          turns_text(results), listing([code(name) for name in targets["targeted_reads"]]),
                          targets["read"], targets["write"]))]

def workload_cell(name, value):
    return "%s %s" % (code(name), code(value["endpoint"])) if "endpoint" in value else code(name)

def results_row(results, name, value):
    target = workload_target(results, name, value)
    return [workload_cell(name, value), "**%.3f**" % value["ratio"], ratio_range(value["ratio_range"]),
            "%.2f" % target if target is not None else "none",
            ("yes" if meets(value["ratio"], target) else "**no**") if target is not None else "",
            "%.0f" % value["rps"], "%.0f" % value["ceiling_tps"], "%.2f" % value["p50"], "%.2f" % value["p99"],
            "%.2f" % value["ceiling_p99"], "%d" % value["errors"]]

def results_table(results):
    header = ["workload", "ratio", "pairs' range", "target", "met", "req/s", "ceiling tps", "p50 ms", "p99 ms",
              "ceiling p99 ms", "errors"]
    return table(header, [results_row(results, name, value) for name, value in workloads(results)])

def depth_bullet(results):
    targets, keyset, offset = targets_of(results), results["keyset_deep_ceiling"], results["offset_deep_ceiling"]
    depth = results.get("deep_page_posts")
    deep = "A page %s posts deep" % "{:,}".format(depth) if depth else "A deep page"
    return bullet("%s against the first page: p99 ratio **%.2f**, at most %g, %s. At the database: keyset %.0f tps "
                  "(%.2f ms), `OFFSET` %.0f tps (%.2f ms)." % (deep, results["depth_p99_ratio"], targets["depth_p99_ratio"],
                                  verdict(results["depth_p99_ratio"], targets["depth_p99_ratio"], at_most=True),
                                  keyset["tps"], keyset["latency_ms"], offset["tps"], offset["latency_ms"]))

def profile_bullet(results):
    profile, limit = results["profile_concurrency"], targets_of(results)["profile_to_slower_read"]
    return bullet("A profile's two reads run at once: p50 %.2f ms against %.2f ms for its slower read alone, ratio "
                  "**%.2f**, at most %g, %s (one after the other: %.2f ms at the database)." % (
                      profile["profile_p50_ms"], profile["posts_read_p50_ms"], profile["ratio_to_slower_read"], limit,
                      verdict(profile["ratio_to_slower_read"], limit, at_most=True), profile["both_reads_sequential_ms"]))

def memory_and_counters_bullet(results):
    limit = targets_of(results)["rss_mib_64"]
    return bullet("Memory (RSS): %.1f MiB idle, %.1f MiB under 64 connections (at most %g, %s), %.1f MiB under 512. "
                  "Posts whose `like_count` differs from their likes: %d after the run, %s before." % (
                      results["idle_rss_mib"], results["rss_mib_64"], limit,
                      verdict(results["rss_mib_64"], limit, at_most=True), results["rss_mib_512"],
                      results["like_count_mismatches"], results.get("like_count_mismatches_before", "not counted")))

def results_section(results):
    return (["## Results", ""] + results_table(results) + ["",
            depth_bullet(results), profile_bullet(results), memory_and_counters_bullet(results)])

def pool_cell(pool_read, ratio, read_target):
    return "%.3f (%s), %s" % (pool_read[ratio], ratio_range(pool_read[ratio + "_range"]),
                              verdict(pool_read[ratio], read_target))

def pool_reads(pool):
    """The reads the pool comparison measured, by name."""
    return sorted(name for name, value in pool.items() if isinstance(value, dict))

def pool_row(name, pool_read, read_target):
    return [code(name), "%.0f / %.0f" % (pool_read["benchmarked_rps"], pool_read["default_rps"]),
            "%.0f / %.0f" % (pool_read["database_benchmarked_tps"], pool_read["database_default_tps"]),
            "%.3f" % pool_read["benchmarked_ratio"], pool_cell(pool_read, "default_load_ratio", read_target),
            pool_cell(pool_read, "default_ratio", read_target)]

def pool_section(results):
    pool, read_target = results["pool"], targets_of(results)["read"]
    size, default = pool["benchmarked_size"], pool["default_size"]
    header = ["read", "service req/s, pool of %d / %d" % (size, default),
              "pgbench tps, %d / %d clients" % (size, default), "ratio, %d on both sides" % size,
              "pool of %d against pgbench at %d" % (default, results["connections"]), "%d on both sides" % default]
    rows = [pool_row(name, pool[name], read_target) for name in pool_reads(pool)]
    served = listing(["%s ×%.2f" % (code(name), pool[name]["speedup"]) for name in pool_reads(pool)])
    database = listing(["×%.2f" % pool[name]["database_speedup"] for name in pool_reads(pool)])
    spent = listing([spent_of_budget(name, pool[name]["default"], read_target) for name in pool_reads(pool)])
    return ["## Pool size", "",
            paragraph("Above, the service has %d database connections, as many as pgbench has clients. A second "
                      "service at its default pool (`DATABASE_POOL_SIZE`, %d here) alternates with it on two reads "
                      "under the same %d wrk connections, each followed by pgbench at its pool's size." % (
                          size, default, results["connections"])),
            ""] + table(header, rows) + ["",
            paragraph("The fifth column holds the service as deployed to the targets (set at %d clients). At %d on "
                      "both sides, per request for %.2f: %s. The default pool ran %s as fast as %d; pgbench at %d "
                      "clients %s." % (
                          results["connections"], default, read_target, spent, served, size, default, database))]

def database_bound_bullet(results):
    bound = [(name, database_share(value)) for name, value in workloads(results)
             if database_share(value) >= DATABASE_BOUND_SHARE]
    if not bound:
        return []
    shares = listing(["%s %.0f%%" % (code(name), share * 100) for name, share in bound])
    return [bullet("**PostgreSQL.** Where it spends %.0f%% or more of the CPU (%s), a ratio measures the database "
                   "against itself." % (DATABASE_BOUND_SHARE * 100, shares))]

def budget_used(results, name, value):
    """The share of its budget for the target the service spent per request."""
    return value["cpu_us"].get("chirp", 0) / service_budget(value, workload_target(results, name, value))

def budget_bullet(results):
    tightest = sorted(targeted_workloads(results), key=lambda item: budget_used(results, *item), reverse=True)
    spent = listing([spent_of_budget(name, value, workload_target(results, name, value))
                     for name, value in tightest[:TIGHTEST_BUDGETS]])
    return bullet("**The service's CPU** counts most where PostgreSQL's is least. Closest to its budget (the "
                  "ceiling's CPU over the target, less PostgreSQL's and wrk's): %s; `/healthz`: %.0f µs." % (
                      spent, results["healthz"]["cpu_us"].get("chirp", 0)))

def drift_bullet(results):
    below = ["%s (%.3f)" % (code(name), value["ratio_range"][0]) for name, value in targeted_workloads(results)
             if value["ratio_range"][0] < workload_target(results, name, value)]
    found = ("A pair fell below target for %s." % listing(below) if below
             else "No targeted workload had a pair below target.")
    return bullet("**Drift.** Speed drifts within a minute, hence the median pair. %s One run proves little." % found)

def latency_bullet(results):
    spreads = sorted((value["p99"] / value["ceiling_p99"], name) for name, value in workloads(results))
    return bullet("**Latency.** wrk waits beside the service and the backends, pgbench beside the backends only: "
                  "the HTTP p99 (worst turn) ran from %.1f× (%s) to %.1f× (%s) the ceiling's." % (
                      spreads[0][0], code(spreads[0][1]), spreads[-1][0], code(spreads[-1][1])))

def hot_post_bullet(results):
    return bullet("**One hot post.** Its likes queue on its counter row: `like_unlike_hot` ran at %.2f of the rate "
                  "of likes spread over many posts." % (
                      results["like_unlike_hot"]["rps"] / results["like_unlike"]["rps"]))

def limits_section(results):
    cores = results.get("cores")
    shared = ("%d cores" % cores) if cores else "the machine's cores"
    return ["## What limits each figure", "",
            bullet("**Shared cores.** wrk, the service and PostgreSQL share %s: rates hold here only." % shared)] + \
        database_bound_bullet(results) + [
            budget_bullet(results), drift_bullet(results), latency_bullet(results), hot_post_bullet(results)]

def tail_targets(results, name, tail):
    """What a tail workload is held to, as (words, met) pairs; none for the others."""
    targets = {**TARGETS, **targets_of(results)}
    value, held = tail[name], []
    # A word behind the write workloads' posts is held to the latency bound only: it measures
    # a stretch of posts without the word as long as the run made it.
    behind = name.startswith("search_common_behind_writes")
    least = None if behind else targets["tail_to_comments"].get("search" if name.startswith("search_") else name)
    if least is not None:
        held.append(("ratio ≥ %g" % least, meets(value["to_comments"], least)))
    if name.startswith("search_"):
        held.append(("p99 ≤ %g ms" % targets["tail_search_p99_ms"], meets(value["p99"], targets["tail_search_p99_ms"], True)))
    median = tail.get("post_by_median_author")
    if name.startswith("post_by_") and name != "post_by_median_author" and median:
        factor = targets["tail_post_p99_over_median"]
        # At fewer connections than the rest: one author's posts queue on the author's counter row.
        held.append(("p99 ≤ %g× a median author's, at %d connections" % (factor, value["connections"]),
                     meets(value["p99"], factor * median["p99"], True)))
    return held

def tail_user(results, value):
    user = results.get("seeded_users", {}).get(value["user"]) if value["user"] else None
    return "%s (follows %d, followed by %d)" % (user["username"], user["following"], user["followers"]) if user else "anonymous"

def tail_row(results, names, tail):
    """One row for workloads that differ only in their order (a search's `recent` and `top`),
    their figures side by side."""
    def each(figure):
        return " / ".join(figure(tail[name]) for name in names)
    held = [tail_targets(results, name, tail) for name in names]
    label = names[0] if len(names) == 1 else names[0].rsplit("_", 1)[0] + "_" + "/".join(n.rsplit("_", 1)[1] for n in names)
    return [code(label), tail_user(results, tail[names[0]]), each(lambda v: "%.0f" % v["rps"]),
            each(lambda v: "**%.3f** (%s)" % (v["to_comments"], ratio_range(v["to_comments_range"]))),
            each(lambda v: "%.2f" % v["p99"]), each(lambda v: "%.2f" % v["comments_p99"] if "comments_p99" in v else "-"),
            "; ".join(words for words, _ in held[0]) or "none",
            " / ".join(", ".join("yes" if met else "**no**" for _, met in row) for row in held if row)]

def tail_rows(tail):
    """The tail's workloads, a search's two orders together."""
    groups = {}
    for name in sorted(tail):
        key = name.rsplit("_", 1)[0] if name.startswith("search_") else name
        groups.setdefault(key, []).append(name)
    return list(groups.values())

def growth_json(size):
    """Where a growth run (BENCH_GROWTH=1) at `size` keeps its reads."""
    return os.path.join(ROOT, "docs/benchmarks/growth-%s.json" % size)

def growth_runs():
    """{size: results} of the growth runs on record, smallest size first."""
    runs = {}
    for size in GROWTH_SIZES:
        if os.path.exists(growth_json(size)):
            with open(growth_json(size)) as handle:
                runs[size] = json.load(handle)
    return runs

def paired_reads(run):
    """{name: read} of a growth run measured in turns with a smaller size (bench/run's
    BENCH_GROWTH=1 at 1m or 3m): each read carries its req/s at both sizes and their ratio."""
    reads = {name: value for name, value in run.items() if isinstance(value, dict) and "growth" in value}
    reads.update({name: value for name, value in run.get("tail", {}).items() if "growth" in value})
    return reads

def paired_growth_section(results, runs):
    least = {**TARGETS, **targets_of(results)}["growth_largest_over_smallest"]
    reads = {size: paired_reads(run) for size, run in runs.items()}
    sizes = list(runs)
    largest = sizes[-1]
    rows = []
    for name in sorted(set().union(*reads.values())):
        cells = []
        for size in sizes:
            read = reads[size].get(name)
            cells += (["%.0f / %.0f" % (read["rps"], read["reference_rps"]),
                       "**%.2f** (%.2f-%.2f)" % (read["growth"], *read["growth_range"])] if read else ["–", "–"])
        read = reads[largest].get(name)
        cells.append(("yes" if read["growth"] >= least else "**no**") if read else "–")
        rows.append([code(name)] + cells)
    header = ["read"]
    for size, run in runs.items():
        reference = run["reference"]["size"]
        header += ["req/s at %s / at %s" % (size, reference), "%s over %s (pairs)" % (size, reference)]
    header.append("met at %s (≥ %g)" % (largest, least))
    described = listing(["%s against %s (%s posts against %s, run of %s at commit %s, %d turns of %g s per read and size)" % (
        size, run["reference"]["size"], format(dict(run["data_rows"])["posts"], ","),
        format(dict(run["reference"]["data_rows"])["posts"], ","), run["date"], run["commit"][:12], run["rounds"],
        run["duration_s"] / run["rounds"]) for size, run in runs.items()])
    return [["## Growth: the reads at every size", "",
             paragraph("Each read at a larger size in turns with the same read at 100k, seeded the same way, two services "
                       "on one PostgreSQL (`BENCH_GROWTH=1 BENCH_SIZE=… bench/run`): %s. Each turn at the larger size is "
                       "paired with the 100k turn after it, and the ratio is the median pair's (its range in brackets), so "
                       "that the machine's drift within the run lands on both sides. Each side signs in its own viewers and "
                       "reads its own posts, seeded users and rarest word." % described), ""]
            + table(header, rows)]

def growth_section(results):
    """The growth runs at the larger sizes, each read in turns with 100k (`paired_growth_section`)."""
    runs = {size: run for size, run in growth_runs().items() if "reference" in run}
    return paired_growth_section(results, runs) if runs else []

def tail_section(results):
    tail = results.get("tail")
    if not tail:
        return []
    header = ["workload", "sent by", "req/s", "ratio to comments (pairs)", "p99 ms", "comments p99 ms", "target", "met"]
    notes = []
    if any(name.startswith("search_") for name in tail):
        notes = ["", bullet("The searches run on the seeded posts, before the write workloads."
                            + "".join(" `%s` runs after them all, when %s posts without the word lie above its newest match."
                                      % (name, format(value["posts_above_match"], ","))
                                      for name, value in sorted(tail.items()) if "posts_above_match" in value))]
    notes += ([] if notes else [""]) + [bullet(
        "A p99 is the worst of the workload's turns; the comments page's, the worst of the turns paired with them, "
        "shows how long the machine itself held requests back meanwhile (wrk, the service and PostgreSQL's backends "
        "share the cores, and the comments page's cost does not change between turns).")]
    if "comment_page_posts" in results:
        notes += [bullet(
            "Each workload's turns follow an untimed second of it (the connections' first statements and plans). The "
            "comments page is read on the first %d of the workloads' posts, each with a full first page of 20."
            % results["comment_page_posts"])]
    return [["## The graph's tail, in turns with the comments page", ""]
            + table(header, [tail_row(results, names, tail) for names in tail_rows(tail)]) + notes]

def render(results):
    """The report's Markdown, from a run's results as measure.py records them."""
    sections = [["# Benchmarks", "", run_line(results)], running_section(), comparison_section(results),
                results_section(results)] + tail_section(results) + growth_section(results) + [pool_section(results), limits_section(results)]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"

def write_report(results, path=REPORT_MD):
    with open(path, "w") as handle:
        handle.write(render(results))

def main(argv):
    if len(argv) > 2 or any(arg.startswith("-") for arg in argv):
        raise SystemExit("usage: python3 bench/report.py [RUN_JSON [REPORT_MD]]")
    source = argv[0] if argv else RESULTS_JSON
    with open(source) as handle:
        results = json.load(handle)
    write_report(results, argv[1] if len(argv) > 1 else REPORT_MD)

if __name__ == "__main__":
    main(sys.argv[1:])
