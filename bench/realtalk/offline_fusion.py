#!/usr/bin/env python3
"""Stack fusion settings tried offline on REALTALK, without re-running the host for each.

    # 1. each provider's own ranked list for every question, from a running host (ingested as in
    #    realtalk_bench.py): limit-50 context calls restricted to one provider ("providers")
    python3 offline_fusion.py dump DATA_DIR --base-url http://127.0.0.1:8080 --token T --out a.json
    # 2. fuse those lists as the stack does (weighted reciprocal rank fusion, copies of one memory
    #    once) over a grid of stack k and builtin weights, and score recall@5 / @10 with the
    #    harness's matching; several dumps (fresh ingests) are scored side by side
    python3 offline_fusion.py grid DATA_DIR a.json [b.json ...]

@5 takes the first 15 items of each list and @10 the first 30, as the host asks each provider for
3 x limit. The script reads a few tenths below the host (it shows the first copy of a memory, the
host its shortest); compare rows of the script with each other, and check a chosen setting on
the host. Python 3 standard library only.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realtalk_bench as rb  # noqa: E402

MIN_CONTAINED = 16  # as the host's RecallMerge


def letters(text):
    return "".join(c for c in (text or "").lower() if c.isalnum())


def fuse(lists, weights, k, per):
    """The stack's fusion of ranked item lists: copies (same letters, or one containing the other)
    are one memory that adds each list's weight / (k + rank) once."""
    memories = []  # [key, score, item, lists seen]
    for index, (items, weight) in enumerate(zip(lists, weights)):
        for rank, item in enumerate(items[:per]):
            key = letters(item["text"])
            contribution = weight / (k + rank + 1)
            found = None
            for memory in memories:
                shorter, longer = sorted((memory[0], key), key=len)
                if memory[0] == key or (len(shorter) >= MIN_CONTAINED and shorter in longer):
                    found = memory
                    break
            if found is None:
                memories.append([key, contribution, item, {index}])
            elif index not in found[3]:
                found[1] += contribution
                found[3].add(index)
    memories.sort(key=lambda m: -m[1])
    return [m[2] for m in memories]


def dump(args):
    api = rb.Api(args.base_url, args.token)
    questions, _ = rb.load_questions(rb.load_chats(args.data_dir, set()))

    def one(question):
        lists = {}
        for provider in args.providers.split(","):
            answer, _ = rb.ask(api, args.agent, question, 50, explain=True, providers=[provider])
            lists[provider] = [{"text": i.get("text"), "provider": i.get("provider"),
                                "turn": (i.get("metadata") or {}).get("turn")}
                               for i in answer.get("recall", [])]
        return lists

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        lists = list(pool.map(one, questions))
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"questions": [q["index"] for q in questions], "lists": lists}, f)
    print(f"{len(lists)} questions written to {args.out}")


def grid(args):
    questions, _ = rb.load_questions(rb.load_chats(args.data_dir, set()))
    dumps = []
    for path in args.dumps:
        with open(path, encoding="utf-8") as f:
            dumps.append(json.load(f)["lists"])

    def score(lists, k, weight):
        at5 = at10 = 0.0
        for question, entry in zip(questions, lists):
            ranked = [entry["vector"], entry["builtin"]]
            at5 += rb.recall_at(fuse(ranked, [1, weight], k, 15), question["gold"], 5)
            at10 += rb.recall_at(fuse(ranked, [1, weight], k, 30), question["gold"], 10)
        return round(100 * at5 / len(questions), 1), round(100 * at10 / len(questions), 1)

    ks = [float(x) for x in args.k.split(",")]
    weights = [float(x) for x in args.weights.split(",")]
    print("k, builtin weight, then @5 / @10 per dump")
    for k, weight in itertools.product(ks, weights):
        cells = "   ".join("%5.1f / %5.1f" % score(lists, k, weight) for lists in dumps)
        print(f"{k:5g} {weight:5g}   {cells}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="each provider's own lists from a running host")
    d.add_argument("data_dir")
    d.add_argument("--base-url", required=True)
    d.add_argument("--token", required=True)
    d.add_argument("--agent", default="realtalk")
    d.add_argument("--providers", default="builtin,vector")
    d.add_argument("--out", required=True)
    g = sub.add_parser("grid", help="fuse the dumped lists over a grid of settings")
    g.add_argument("data_dir")
    g.add_argument("dumps", nargs="+")
    g.add_argument("--k", default="5,10,20,40")
    g.add_argument("--weights", default="0.1,0.2,0.3,0.5")
    args = parser.parse_args()
    dump(args) if args.command == "dump" else grid(args)


if __name__ == "__main__":
    main()
