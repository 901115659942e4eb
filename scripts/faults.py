"""The fault suite's load, faults and checks (scripts/faults starts PostgreSQL and runs this)."""

import argparse
import http.client
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid

PG_BIN = "/usr/lib/postgresql/15/bin"
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


def as_postgres(command):
    return (["runuser", "-u", "postgres", "--"] + command) if os.geteuid() == 0 else command


class Service:
    """`chirp serve` as a process of its own, restarted at will."""

    def __init__(self, args):
        self.args, self.process = args, None
        self.environment = dict(
            os.environ, DATABASE_URL="postgres://chirp_service@127.0.0.1:%s/chirp" % args.pg_port,
            JWT_SECRET=secrets.token_urlsafe(48), HOST="127.0.0.1", PORT=str(args.port), LOG_LEVEL="warning",
            MAX_CONNECTIONS_PER_IP="0", DATABASE_POOL_SIZE="6", DATABASE_POOL_TIMEOUT_MS="1000",
            RATE_LIMIT_SIGNUPS_PER_ADDRESS="100000", RATE_LIMIT_LOGINS_PER_ADDRESS="100000",
            RATE_LIMIT_REFRESHES_PER_ADDRESS="100000")

    def start(self):
        log = open(os.path.join(self.args.folder, "chirp.log"), "a")
        self.process = subprocess.Popen([self.args.chirp, "serve"], env=self.environment, stderr=log, stdout=log)
        with open(os.path.join(self.args.folder, "chirp.pid"), "w") as handle:
            handle.write(str(self.process.pid))
        deadline = time.time() + 30
        while time.time() < deadline:
            if request("GET", "/readyz")[0] == 200:
                return
            time.sleep(0.1)
        raise SystemExit("chirp serve did not become ready")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


PORT = [0]


def request(method, path, body=None, token=None, headers=None, timeout=10):
    """(status, JSON body, headers); status None when the connection failed."""
    connection = http.client.HTTPConnection("127.0.0.1", PORT[0], timeout=timeout)
    fields = dict(headers or {})
    if token:
        fields["Authorization"] = "Bearer " + token
    payload = None
    if body is not None:
        payload = json.dumps(body)
        fields["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=payload, headers=fields)
        response = connection.getresponse()
        data = response.read()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return response.status, parsed, dict(response.getheaders())
    except (OSError, http.client.HTTPException):
        return None, None, {}
    finally:
        connection.close()


def psql(args, sql):
    return subprocess.run(["psql", "-X", "-q", "-At", args.admin, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()


class Load:
    """Clients creating posts (each with an Idempotency-Key), liking and reading, recording
    every answer."""

    def __init__(self, users, target, clients=6):
        self.users, self.target, self.clients = users, target, clients
        self.records, self.lock, self.stop = [], threading.Lock(), threading.Event()

    def run(self, index):
        user = self.users[index % len(self.users)]
        step = 0
        while not self.stop.is_set():
            step += 1
            kind = step % 3
            if kind == 0:
                key, text = str(uuid.uuid4()), "fault %s" % uuid.uuid4()
                status, body, headers = request("POST", "/v1/posts", {"body": text}, user["token"], {"Idempotency-Key": key})
                record = ("create", status, (body or {}).get("code"), headers.get("Retry-After"), (key, text, user["token"]))
            elif kind == 1:
                method = "PUT" if step % 2 else "DELETE"
                status, body, headers = request(method, "/v1/posts/%s/like" % self.target, token=user["token"])
                record = ("like", status, (body or {}).get("code"), headers.get("Retry-After"), None)
            else:
                status, body, headers = request("GET", "/v1/posts?limit=5")
                record = ("read", status, (body or {}).get("code"), headers.get("Retry-After"), None)
            with self.lock:
                self.records.append(record)
            if status is None or status >= 500:
                time.sleep(0.05)

    def __enter__(self):
        self.threads = [threading.Thread(target=self.run, args=(index,)) for index in range(self.clients)]
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join()


def check(args, name, load, interrupted=False):
    """Every write as answered; counters equal to their rows."""
    answered = {"ok": 0, "unavailable": 0, "unknown": 0, "retried": 0}
    for kind, status, code, retry_after, write in load.records:
        if status is not None and status >= 500 and status != 503:
            fail("%s: %s answered %d %s" % (name, kind, status, code))
        if status == 503 and retry_after is None:
            fail("%s: a 503 without Retry-After (%s)" % (name, kind))
        if kind != "create":
            continue
        key, text, token = write
        stored = int(psql(args, "select count(*) from posts where body = '%s'" % text))
        if status == 201:
            answered["ok"] += 1
            if stored != 1:
                fail("%s: an acknowledged post is stored %d times" % (name, stored))
        elif status == 503 and code == "unavailable":
            answered["unavailable"] += 1
            if stored != 0:
                fail("%s: a post answered 503 unavailable was stored" % name)
        elif status == 503 and code == "outcome_unknown" or (status is None and interrupted):
            answered["unknown"] += 1
            # Retried with its key until answered: then stored exactly once.
            for _ in range(100):
                again, _, _ = request("POST", "/v1/posts", {"body": text}, token, {"Idempotency-Key": key})
                if again == 201:
                    answered["retried"] += 1
                    break
                time.sleep(0.1)
            stored = int(psql(args, "select count(*) from posts where body = '%s'" % text))
            if stored != 1:
                fail("%s: a write of unknown outcome, retried with its key, is stored %d times" % (name, stored))
        elif status is None:
            fail("%s: a create got no answer at all" % name)
    counters = psql(args, """
        select (select count(*) from posts p where like_count <> (select count(*) from likes l where l.post_id = p.id))
             + (select count(*) from users u where post_count <> (select count(*) from posts p where p.author_id = u.id))""")
    if counters != "0":
        fail("%s: %s counters differ from their rows" % (name, counters))
    statuses = {}
    for record in load.records:
        statuses[record[1]] = statuses.get(record[1], 0) + 1
    print("%s: %d requests %s; creates acknowledged %d, failed %d, unknown %d (retried into one %d)" % (
        name, len(load.records), dict(sorted(statuses.items(), key=lambda item: str(item[0]))),
        answered["ok"], answered["unavailable"], answered["unknown"], answered["retried"]))


def first_success_after(deadline_seconds):
    started = time.time()
    while time.time() - started < deadline_seconds:
        if request("GET", "/v1/posts?limit=1", timeout=2)[0] == 200:
            return time.time() - started
        time.sleep(0.02)
    return None


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--chirp", "--admin", "--pg-folder", "--folder"]:
        parser.add_argument(flag, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pg-port", type=int, required=True)
    args = parser.parse_args()
    PORT[0] = args.port
    service = Service(args)
    service.start()

    users = []
    for index in range(6):
        status, body, _ = request("POST", "/v1/auth/signup", {"username": "fault_%d_%s" % (index, secrets.token_hex(3)), "password": "correct horse battery"})
        if status != 201:
            raise SystemExit("sign-up failed: %s %s" % (status, body))
        users.append({"token": body["accessToken"]})
    _, post, _ = request("POST", "/v1/posts", {"body": "the liked post"}, users[0]["token"])
    target = post["id"]

    # 1. PostgreSQL stopped at once (no checkpoint, as a crash) and started again.
    with Load(users, target) as load:
        time.sleep(1.5)
        subprocess.run(as_postgres([PG_BIN + "/pg_ctl", "-D", args.pg_folder + "/data", "-m", "immediate", "stop"]),
                       check=True, capture_output=True)
        time.sleep(2)
        subprocess.run(["scripts/pg", "start", args.pg_folder, str(args.pg_port)], check=True, capture_output=True)
        back = first_success_after(5)
        time.sleep(1)
    if back is None:
        fail("crash: no 2xx within 5 s of PostgreSQL coming back")
    print("crash: 2xx again %.3f s after PostgreSQL was back" % (back or -1))
    check(args, "crash", load)

    # 2. Every backend terminated, five times, 300 ms apart.
    with Load(users, target) as load:
        for _ in range(5):
            time.sleep(0.3)
            psql(args, "select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = 'chirp' and pid <> pg_backend_pid()")
        time.sleep(0.5)
    check(args, "terminate", load)

    # 3. A lock holding every pooled connection (reads of posts wait on it), then released.
    holder = subprocess.Popen(["psql", "-X", "-q", args.admin, "-c",
                               "begin; lock table posts in access exclusive mode; select pg_sleep(4); commit;"],
                              stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    started = time.time()
    results = []
    readers = [threading.Thread(target=lambda: results.append((request("GET", "/v1/posts?limit=1")[0], time.time() - started)))
               for _ in range(12)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    refused = [elapsed for status, elapsed in results if status == 503]
    if not refused or max(refused) > 2.5:
        fail("lock: expected 503s within the pool's 1 s wait, got %s" % sorted(results))
    holder.wait()
    recovered = first_success_after(1)
    if recovered is None or recovered > 0.5:
        fail("lock: no 2xx within 0.5 s of the lock's release (%s)" % recovered)
    print("lock: %d of %d requests answered 503 within %.2f s; 2xx %.3f s after release" % (
        len(refused), len(results), max(refused or [0]), recovered or -1))

    # 4. A like/unlike storm: counters equal rows (checked with the writes).
    with Load(users, target, clients=12) as load:
        time.sleep(3)
    check(args, "storm", load)

    # 5. Chirp killed with SIGKILL in the middle of writes, and started again.
    with Load(users, target) as load:
        time.sleep(1)
        service.kill()
        time.sleep(0.3)
    service.start()
    check(args, "kill -9", load, interrupted=True)

    if failures:
        raise SystemExit("%d fault check(s) failed" % len(failures))
    print("faults: every check passed")


if __name__ == "__main__":
    main()
