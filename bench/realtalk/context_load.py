#!/usr/bin/env python3
"""Context-call latency on REALTALK at several numbers of concurrent clients.

Asks the REALTALK questions (categories 1-3, as realtalk_bench.py reads them) of a running host
that holds the ingested chats, as `POST /api/v1/agents/<agent>/memory/context` with the question's
owner (`api:realtalk-<chat>`), limit 5, no explain, one keep-alive connection per client. First a
warm-up of every question at 4 clients (the JIT compiles the hot paths); then for each level of
concurrency: a warm-up, then every question once (or `--rounds` times), the clients
taking the next question as they finish one (closed loop). Reports client wall-time p50 / p95 /
p99, errors (any answer other than 200, or a broken connection: never retried), the host's CPU
time a call (its `process.cpu.time` metric before and after the level, every thread of the
process, the model's included) and the medians of each provider's `tookMs`. With `--host-pid`
(the host on this machine) the host's CPU a call is also split by thread (the JIT's compiler
threads, garbage collection, request threads, the stack's provider threads, which also run the
query embedding, and the rest, from /proc), and after the first warm-up every question is asked
again at 1 client until the JIT has settled: until its compiler threads take less than
`--settle` (5 %) of the host's CPU in such a round, at most `--max-warm-up-rounds` rounds (8). On
two cores the JIT still took half of the host's CPU at 1 client after the first warm-up (it
compiles when a core is idle, and its queue is long: Lucene, Tomcat, Spring MVC, Jackson), and
1-4 % after four more rounds.
See bench/realtalk/README.md. Python 3 standard library only.

    python3 context_load.py DATA_DIR --base-url http://127.0.0.1:8080 --token TOKEN \
        [--levels 1,4,16] [--warm-up 100] [--rounds 1] [--host-pid PID] [--out results.json]
    python3 context_load.py DATA_DIR --write-queries FILE   # the questions, one a line
"""

import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from realtalk_bench import load_chats, load_questions, percentile  # noqa: E402


class Client:
    """One keep-alive connection; a failed call is an error, not retried."""

    def __init__(self, base_url, token, timeout):
        parsed = urllib.parse.urlsplit(base_url)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.prefix = parsed.path.rstrip("/")
        self.headers = {"Authorization": "Bearer " + token, "Accept": "application/json",
                        "Content-Type": "application/json"}
        self.timeout = timeout
        self.conn = None

    def post(self, path, body):
        """(status or None, parsed answer or None, seconds, error text or None)."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        data = json.dumps(body).encode("utf-8")
        start = time.perf_counter()
        try:
            self.conn.request("POST", self.prefix + path, body=data, headers=self.headers)
            response = self.conn.getresponse()
            raw = response.read()
        except (http.client.HTTPException, OSError) as e:
            took = time.perf_counter() - start
            self.conn.close()
            self.conn = None
            return None, None, took, repr(e)
        took = time.perf_counter() - start
        if response.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = None
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return response.status, parsed, took, None

    def close(self):
        if self.conn is not None:
            self.conn.close()


def run_level(args, questions, clients, count, record):
    """Asks `count` questions (cycling through the list) with `clients` threads; returns the
    per-call results when `record`, else None."""
    path = f"/api/v1/agents/{urllib.parse.quote(args.agent)}/memory/context"
    next_index = [0]
    lock = threading.Lock()
    results = []

    def worker():
        client = Client(args.base_url, args.token, args.timeout)
        mine = []
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= count:
                break
            q = questions[i % len(questions)]
            body = {"ownerKey": q["owner"], "conversationId": "realtalk-questions",
                    "query": q["question"], "limit": args.limit}
            status, answer, took, error = client.post(path, body)
            if error is None and (status != 200 or answer is None):
                error = f"HTTP {status}"
            took_ms = {}
            if answer and status == 200:
                took_ms = {p["id"]: p.get("tookMs", 0) for p in answer.get("providers", [])
                           if p.get("status") == "ok"}
            mine.append((took * 1000, error, took_ms))
        client.close()
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    return (results, seconds) if record else None


def host_cpu_seconds(args):
    """The host process's CPU time so far (Micrometer's process.cpu.time), or None."""
    client = Client(args.base_url, args.token, args.timeout)
    try:
        client.conn = http.client.HTTPConnection(client.host, client.port, timeout=args.timeout)
        client.conn.request("GET", client.prefix + "/actuator/metrics/process.cpu.time",
                            headers=client.headers)
        response = client.conn.getresponse()
        body = json.loads(response.read() or b"null")
        if response.status != 200 or not body:
            return None
        return body["measurements"][0]["value"] / 1e9
    except (http.client.HTTPException, OSError, ValueError, KeyError, IndexError):
        return None
    finally:
        client.close()


THREAD_GROUPS = (
    ("jit", ("C1 CompilerThre", "C2 CompilerThre", "Sweeper thread")),
    ("gc", ("GC Thread", "G1 ", "VM Thread")),
    ("requests", ("http-nio-",)),
    ("providers", ("memstack-provid",)),
)


def thread_ticks(pid):
    """(group, CPU clock ticks so far) of each live thread of process pid (Linux /proc), or None."""
    if not pid:
        return None
    totals = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])  # utime + stime
        group = next((g for g, prefixes in THREAD_GROUPS
                      if any(name.startswith(p) for p in prefixes)), "other")
        totals[task] = (group, ticks)
    return totals


def ms_per_call(before, after, calls):
    """Thread-group CPU in ms a call between two thread_ticks readings."""
    if before is None or after is None or not calls:
        return None
    hz = os.sysconf("SC_CLK_TCK")
    split = {g: 0.0 for g, _ in THREAD_GROUPS}
    split["other"] = 0.0
    # a thread that ended in between is not counted (its last ticks are lost with it)
    for task, (group, ticks) in after.items():
        split[group] += (ticks - before.get(task, (group, 0))[1]) * 1000 / hz / calls
    return split


def summarise(clients, results, seconds):
    ok = [ms for ms, error, _ in results if error is None]
    errors = [error for _, error, _ in results if error is not None]
    by_provider = {}
    for _, error, took in results:
        for provider, ms in took.items():
            by_provider.setdefault(provider, []).append(ms)
    return {
        "clients": clients,
        "calls": len(results),
        "errors": len(errors),
        "first_errors": sorted(set(errors))[:3],
        "p50": percentile(ok, 50),
        "p95": percentile(ok, 95),
        "p99": percentile(ok, 99),
        "mean": statistics.mean(ok) if ok else None,
        "calls_per_second": len(results) / seconds if seconds else None,
        "provider_took_ms_p50": {p: statistics.median(v) for p, v in sorted(by_provider.items())},
        "load_average": " ".join(open("/proc/loadavg").read().split()[:3]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir")
    parser.add_argument("--base-url")
    parser.add_argument("--token")
    parser.add_argument("--agent", default="realtalk")
    parser.add_argument("--levels", default="1,4,16", help="concurrent clients, comma-separated")
    parser.add_argument("--first-warm-up", type=int, default=None,
                        help="calls at 4 clients before the first level (default: one a question)")
    parser.add_argument("--warm-up", type=int, default=100, help="calls before each level")
    parser.add_argument("--rounds", type=int, default=1, help="times each level asks every question")
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a call fails")
    parser.add_argument("--host-pid", type=int, help="the host's process id, for CPU by thread")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="warm up until the JIT takes less than this %% of the host's CPU")
    parser.add_argument("--max-warm-up-rounds", type=int, default=8)
    parser.add_argument("--out", help="JSON file with every figure")
    parser.add_argument("--label", default="")
    parser.add_argument("--write-queries", metavar="FILE",
                        help="only write the questions to FILE, one a line, and stop")
    args = parser.parse_args()

    questions, _ = load_questions(load_chats(args.data_dir, None))
    if args.write_queries:
        with open(args.write_queries, "w", encoding="utf-8") as f:
            for q in questions:
                f.write(" ".join(q["question"].split()) + "\n")
        return
    if not args.base_url or not args.token:
        parser.error("--base-url and --token are required")
    levels = [int(x) for x in args.levels.split(",")]
    report = {"label": args.label, "questions": len(questions), "limit": args.limit, "levels": []}
    first = len(questions) if args.first_warm_up is None else args.first_warm_up
    settling = args.host_pid is not None and args.first_warm_up is None
    print(f"context calls: {len(questions)} questions, limit {args.limit}, levels {levels}, "
          f"warm-up {first} calls at 4 clients"
          f"{f', then every question at 1 client until the JIT takes < {args.settle:g} % of the CPU' if settling else ''}, "
          f"then {args.warm_up} a level, {args.rounds} round(s)", flush=True)
    run_level(args, questions, 4, first, record=False)  # the JIT compiles the hot paths
    rounds = 0
    while settling:  # and, given idle CPU, the rest of its queue
        before = thread_ticks(args.host_pid)
        run_level(args, questions, 1, len(questions), record=False)
        rounds += 1
        split = ms_per_call(before, thread_ticks(args.host_pid), len(questions))
        if split is None:
            break
        jit = 100 * split["jit"] / max(sum(split.values()), 1e-9)
        print(f"  settling round {rounds} at 1 client: JIT {jit:.1f} % of the host's CPU "
              f"({split['jit']:.1f} ms a call)", flush=True)
        if jit < args.settle or rounds >= args.max_warm_up_rounds:
            break
    report["warm_up_rounds"] = rounds
    for clients in levels:
        run_level(args, questions, clients, args.warm_up, record=False)
        cpu_before = host_cpu_seconds(args)
        ticks_before = thread_ticks(args.host_pid)
        results, seconds = run_level(args, questions, clients, len(questions) * args.rounds, True)
        ticks_after = thread_ticks(args.host_pid)
        cpu_after = host_cpu_seconds(args)
        row = summarise(clients, results, seconds)
        row["host_cpu_ms_per_call_by_thread"] = ms_per_call(ticks_before, ticks_after, len(results))
        row["host_cpu_ms_per_call"] = (
            None if cpu_before is None or cpu_after is None
            else (cpu_after - cpu_before) * 1000 / len(results))
        report["levels"].append(row)
        cpu = ("?" if row["host_cpu_ms_per_call"] is None
               else f"{row['host_cpu_ms_per_call']:.1f} ms")
        took = ", ".join(f"{p} {v:.0f}" for p, v in row["provider_took_ms_p50"].items())
        print(f"clients {clients:2}: {row['calls']} calls, errors {row['errors']}, "
              f"p50 {row['p50']:.1f} ms, p95 {row['p95']:.1f} ms, p99 {row['p99']:.1f} ms, "
              f"{row['calls_per_second']:.1f} calls/s; host CPU {cpu} a call; host tookMs p50 {took}; "
              f"load {row['load_average']}", flush=True)
        if row["host_cpu_ms_per_call_by_thread"]:
            print("  host CPU a call by thread: " + ", ".join(
                f"{g} {v:.1f} ms" for g, v in row["host_cpu_ms_per_call_by_thread"].items()),
                flush=True)
        if row["errors"]:
            print(f"  first errors: {row['first_errors']}", flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
