#!/usr/bin/env python3
"""Per-question context-call latency on a held REALTALK host: asks every question `--rounds` times
at one client, drops each question's first `--skip` answers (the JIT still compiling), and prints
the median over questions of each question's median latency and the 95th percentile of those
medians, beside the providers' own `tookMs`. A question's median is steadier than one call, so two
builds alternated on one machine compare with less noise than the levels of context_load.py.

    HOLD=1 DATA_DIR=<folder> scripts/realtalk-bench.sh <REALTALK dir> --ingest-only --skip-ingest
    python3 bench/realtalk/question_latency.py <REALTALK dir> --base-url URL --token TOKEN \
        [--rounds 6] [--skip 2] [--out FILE]
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from context_load import Client, load_chats, load_questions  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--agent", default="realtalk")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--skip", type=int, default=2, help="first answers of a question left out")
    parser.add_argument("--out", help="JSON file with each question's figures")
    args = parser.parse_args()
    if args.rounds <= args.skip:
        parser.error("--rounds must be larger than --skip")
    questions, _ = load_questions(load_chats(args.data_dir, None))
    client = Client(args.base_url, args.token, 30.0)
    path = f"/api/v1/agents/{args.agent}/memory/context"
    calls = [[] for _ in questions]
    for _ in range(args.rounds):
        for i, q in enumerate(questions):
            body = {"ownerKey": q["owner"], "conversationId": "realtalk-questions",
                    "query": q["question"], "limit": 5}
            status, answer, took, error = client.post(path, body)
            if error is not None or status != 200 or answer is None:
                sys.exit(f"question {i}: {error or 'HTTP ' + str(status)}")
            took_ms = {p["id"]: p.get("tookMs", 0) for p in answer.get("providers", [])
                       if p.get("status") == "ok"}
            calls[i].append((took * 1000, took_ms))
    client.close()
    rows = []
    for q, mine in zip(questions, calls):
        kept = mine[args.skip:]
        providers = sorted({p for _, t in kept for p in t})
        rows.append({"question": q["question"], "owner": q["owner"],
                     "median_ms": statistics.median(ms for ms, _ in kept),
                     "took_ms": {p: statistics.median(t.get(p, 0) for _, t in kept)
                                 for p in providers}})
    medians = sorted(r["median_ms"] for r in rows)
    p95 = medians[min(len(medians) - 1, int(0.95 * len(medians)))]
    took = {p: statistics.median(r["took_ms"].get(p, 0) for r in rows)
            for p in sorted({p for r in rows for p in r["took_ms"]})}
    print(f"question latency: {len(rows)} questions x {args.rounds - args.skip} calls: median of "
          f"medians {statistics.median(medians):.2f} ms, p95 of medians {p95:.2f} ms; "
          f"providers' tookMs (median of medians) {took}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
