#!/usr/bin/env python3
"""The learned ranking of the stack: dump candidates with their features from a running host,
train a model, cross-validate it by conversation.

  ranker.py dump  DATA_DIR --base-url URL --token T --out dump.jsonl [--limit 200]
  ranker.py train dump.jsonl --out model.json [--exclude 3,7] [--name NAME]
  ranker.py cv    dump.jsonl [--out folds.json]          (leave one conversation out, offline)
  ranker.py score dump.jsonl --model model.json [--chats 3]

`dump` asks every REALTALK question once (limit 200, explain) of a host whose ranking is the
fusion (`--memstack.stack.ranking.model=none`) with a context budget large enough to show every
candidate: each answer item carries the host's ranking features (`stack.feature.<name>`), the
exact values the host computes when it ranks with a model (and, as `at`, when it was written). `train` fits a linear model on
standardised features with a pairwise logistic loss (every gold item against every other item of
the same question) and writes the host's model file (format memstack-ranking/1). `cv` trains on
nine conversations, ranks the tenth and reports recall@5/@10 per fold and over all questions.
numpy is the only dependency beyond the standard library.
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realtalk_bench as rb  # noqa: E402

FEATURE = "stack.feature."

# Provider signals that are not evidence of relevance: positions in a file, and rank signals
# (their "absent" value 0 would read as better than rank 1; the host's rank:<provider> features
# carry ranks in a form where absent is worst).
EXCLUDED_SUFFIXES = (":line", "rank")  # of signal: names, compared in lower case
# Feedback and trust enter after the ranking score (the host's trust stage), never as features.
EXCLUDED = ("signal:vector:signal.feedback", "signal:vector:signal.feedback_factor",
            "signal:vector:signal.trust", "signal:vector:signal.trust_factor",
            "signal:vector:signal.wrong", "signal:vector:signal.recency", "signal:builtin:weight")


def numpy():
    try:
        import numpy as np
        return np
    except ImportError:
        sys.exit("ranker.py needs numpy (Debian: apt install python3-numpy, then run it with "
                 "/usr/bin/python3)")


# ---------------------------------------------------------------------------------------------
# dump


def dump(args):
    chats = rb.load_chats(args.data, None)
    questions, _ = rb.load_questions(chats)
    api = rb.Api(args.base_url, args.token)
    status, health, _, _ = api.call("GET", "/actuator/health")
    ranking = (health.get("components") or {}).get("ranking", {}).get("details", {})
    if ranking.get("mode") != "fusion":
        sys.exit("the host must rank by the fusion (--memstack.stack.ranking.model=none): "
                 + json.dumps(ranking))
    with open(args.out, "w") as out:
        out.write(json.dumps({"embeddingModel": ranking.get("embeddingModel"),
                              "limit": args.limit}) + "\n")
        for n, q in enumerate(questions):
            answer, _ = rb.ask(api, args.agent, q, args.limit, explain=True)
            items = answer.get("recall", [])
            texts = [rb.normalise(i.get("text") or "") for i in items]
            rows = []
            for text, item in zip(texts, items):
                metadata = item.get("metadata") or {}
                features = {k[len(FEATURE):]: float(v.split()[0])
                            for k, v in metadata.items() if k.startswith(FEATURE)}
                covers = [g for g, gold in enumerate(q["gold"]) if gold and gold in text]
                row = {"f": features, "c": covers}
                if item.get("createdAt"):
                    row["at"] = item["createdAt"]
                if args.texts:
                    row["t"] = text
                rows.append(row)
            out.write(json.dumps({"chat": q["chat"], "index": q["index"],
                                  "category": q["category"], "gold": len(q["gold"]),
                                  **({"question": q["question"]} if args.texts else {}),
                                  "items": rows}) + "\n")
            if n % 100 == 0:
                print(f"  {n}/{len(questions)} questions", file=sys.stderr)


def read_dump(path):
    with open(path) as f:
        header = json.loads(f.readline())
        questions = [json.loads(line) for line in f if line.strip()]
    return header, questions


# ---------------------------------------------------------------------------------------------
# features, training


def feature_names(questions):
    names = set()
    for q in questions:
        for item in q["items"]:
            names.update(item["f"].keys())
    return sorted(n for n in names if n not in EXCLUDED and not (
        n.startswith("signal:") and n.lower().endswith(EXCLUDED_SUFFIXES)))


def serving_pool(questions, pool):
    """Keeps the candidates a serving host sees with memstack.stack.ranking.candidates=pool: the
    items some provider ranked within its first `pool` (the dump asks each provider for 200)."""
    if not pool:
        return questions
    floor = 1 / (1 + math.log(pool)) - 1e-9
    out = []
    for q in questions:
        items = [i for i in q["items"]
                 if any(v >= floor for k, v in i["f"].items() if k.startswith("rank:"))]
        out.append({**q, "items": items})
    return out


def matrix(np, questions, names):
    """Per question: (X, covers) with X the candidates' feature rows in the host's order."""
    out = []
    for q in questions:
        X = np.array([[item["f"].get(n, 0.0) for n in names] for item in q["items"]],
                     dtype=np.float64).reshape(len(q["items"]), len(names))
        out.append((X, [item["c"] for item in q["items"]], q))
    return out


def fit(np, data, names, l2=1e-2, steps=300, negatives=None, lam=True, hidden=0, seed=7):
    """A ranking function trained on pairs: every gold item above every other item of its
    question (logistic loss on the score difference). The function is linear in the standardised
    features, plus `hidden` ReLU units when asked (a small network whose every unit also reads the
    standardised features). With `lam` (LambdaRank weighting) each pair weighs
    |1/log2(2+r_gold) - 1/log2(2+r_other)| at the current model's ranks, re-ranked every 50 steps:
    the loss looks at the top of the list, where recall@5 is decided. Each question weighs the
    same. Returns (mean, scale, params) with params {"w", "H", "c", "a"}."""
    rng = np.random.default_rng(seed)
    rows = np.vstack([X for X, _, _ in data if len(X)])
    mean = rows.mean(axis=0)
    scale = rows.std(axis=0)
    keep = scale > 1e-9
    scale = np.where(keep, scale, 1.0)
    Zs, PI, NI, Q = [], [], [], []
    offset = 0
    for X, covers, _ in data:
        pos = [i for i, c in enumerate(covers) if c]
        neg = [i for i, c in enumerate(covers) if not c]
        if negatives:
            neg = neg[:negatives]
        if not pos or not neg:
            continue
        Zs.append((X - mean) / scale)
        PI.append(offset + np.repeat(np.array(pos), len(neg)))
        NI.append(offset + np.tile(np.array(neg), len(pos)))
        Q.append((offset, len(X), len(PI[-1])))
        offset += len(X)
    Z = np.vstack(Zs)
    Z[:, ~keep] = 0
    pi = np.concatenate(PI)
    ni = np.concatenate(NI)
    f = len(names)
    params = {"w": np.zeros(f)}
    if hidden:
        params["H"] = rng.normal(0, 0.3 / np.sqrt(f), (hidden, f))
        params["c"] = np.zeros(hidden)
        params["a"] = rng.normal(0, 0.1, hidden)

    def scores():
        s = Z @ params["w"]
        if hidden:
            act = np.maximum(Z @ params["H"].T + params["c"], 0)
            s = s + act @ params["a"]
            return s, act
        return s, None

    def pair_weights(s):
        out = np.empty(len(pi))
        start = 0
        for (o, n, count) in Q:
            seg = slice(start, start + count)
            if lam:
                order = np.argsort(-s[o:o + n], kind="stable")
                rank = np.empty(n, dtype=np.int64)
                rank[order] = np.arange(n)
                gain = 1 / np.log2(rank + 2)
                pw = np.abs(gain[pi[seg] - o] - gain[ni[seg] - o])
            else:
                pw = np.ones(count)
            out[seg] = pw / pw.sum()
            start += count
        return out / len(Q)

    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    lr = 0.05 if not hidden else 0.02
    W = None
    for t in range(1, steps + 1):
        s, act = scores()
        if W is None or (lam and t % 50 == 1):
            W = pair_weights(s)
        p = 1 / (1 + np.exp(np.clip(s[pi] - s[ni], -30, 30)))
        gp = -W * p
        g = np.bincount(pi, gp, minlength=len(Z)) - np.bincount(ni, gp, minlength=len(Z))
        grads = {"w": Z.T @ g + l2 * params["w"]}
        if hidden:
            grads["a"] = act.T @ g + l2 * params["a"]
            back = (g[:, None] * params["a"][None, :]) * (act > 0)
            grads["H"] = back.T @ Z + l2 * params["H"]
            grads["c"] = back.sum(axis=0)
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v2[k] = 0.999 * v2[k] + 0.001 * grads[k] * grads[k]
            params[k] -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v2[k] / (1 - 0.999 ** t)) + 1e-8)
    params["w"][~keep] = 0
    if hidden:
        params["H"][:, ~keep] = 0
    return mean, scale, params


def model_json(name, embedding_model, names, mean, scale, params, trained_on):
    def r(a):
        return [round(float(x), 6) for x in a]

    model = {"format": "memstack-ranking/1", "name": name, "embeddingModel": embedding_model,
             "features": names, "mean": r(mean), "scale": r(scale), "weights": r(params["w"]),
             "bias": 0.0, "trainedOn": trained_on}
    if "H" in params:
        model["hidden"] = {"weights": [r(row) for row in params["H"]], "bias": r(params["c"]),
                           "out": r(params["a"])}
    return model


# ---------------------------------------------------------------------------------------------
# evaluation


def recall(order, covers, gold, k):
    """Max matching of the first k items to gold messages, over the gold count."""
    return rb.max_matching([covers[i] for i in order[:k]]) / gold


def evaluate(np, data, scorer):
    """recall@5, @10 and candidate recall @50, @200 (mean over questions) with `scorer` (None:
    the host's order)."""
    sums = {"@5": 0.0, "@10": 0.0, "cand@50": 0.0, "cand@200": 0.0}
    for X, covers, q in data:
        n = len(covers)
        if scorer is None or n == 0:
            order = list(range(n))
        else:
            s = scorer(X)
            order = sorted(range(n), key=lambda i: (-s[i], i))
        sums["@5"] += recall(order, covers, q["gold"], 5)
        sums["@10"] += recall(order, covers, q["gold"], 10)
        sums["cand@50"] += recall(list(range(n)), covers, q["gold"], 50)
        sums["cand@200"] += recall(list(range(n)), covers, q["gold"], 200)
    return {k: 100 * v / max(1, len(data)) for k, v in sums.items()}, len(data)


def scorer(np, mean, scale, params):
    def score(X):
        Z = (X - mean) / scale
        s = Z @ params["w"]
        if "H" in params:
            s = s + np.maximum(Z @ params["H"].T + params["c"], 0) @ params["a"]
        return s
    return score


def cv(args):
    np = numpy()
    header, questions = read_dump(args.dump)
    questions = serving_pool(questions, args.pool)
    names = feature_names(questions)
    if args.drop:
        names = [n for n in names if not any(n.startswith(p) for p in args.drop.split(","))]
    data = matrix(np, questions, names)
    chats = sorted({q["chat"] for q in questions})
    folds = []
    total = {"@5": 0.0, "@10": 0.0}
    base_total = {"@5": 0.0, "@10": 0.0}
    for chat in chats:
        train = [d for d in data if d[2]["chat"] != chat]
        test = [d for d in data if d[2]["chat"] == chat]
        mean, scale, w = fit(np, train, names, l2=args.l2, negatives=args.negatives, hidden=args.hidden, steps=args.steps)
        learned, n = evaluate(np, test, scorer(np, mean, scale, w))
        base, _ = evaluate(np, test, None)
        folds.append({"chat": chat, "questions": n, "fusion": base, "learned": learned})
        for k in total:
            total[k] += learned[k] * n
            base_total[k] += base[k] * n
    n = len(data)
    mean, scale, w = fit(np, data, names, l2=args.l2, negatives=args.negatives, hidden=args.hidden, steps=args.steps)
    in_sample, _ = evaluate(np, data, scorer(np, mean, scale, w))
    result = {"features": names, "questions": n, "folds": folds,
              "cv": {k: v / n for k, v in total.items()},
              "fusion": {k: v / n for k, v in base_total.items()},
              "inSample": in_sample}
    print(f"{'chat':>5} {'q':>4} {'fusion@5':>9} {'fusion@10':>9} {'learned@5':>9} "
          f"{'learned@10':>10} {'cand@50':>8} {'cand@200':>8}")
    for f in folds:
        print(f"{f['chat']:>5} {f['questions']:>4} {f['fusion']['@5']:9.1f} "
              f"{f['fusion']['@10']:9.1f} {f['learned']['@5']:9.1f} {f['learned']['@10']:10.1f} "
              f"{f['learned']['cand@50']:8.1f} {f['learned']['cand@200']:8.1f}")
    print(f"  all {n:>4} {result['fusion']['@5']:9.1f} {result['fusion']['@10']:9.1f} "
          f"{result['cv']['@5']:9.1f} {result['cv']['@10']:10.1f}  "
          f"(in-sample {in_sample['@5']:.1f} / {in_sample['@10']:.1f})")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


def train(args):
    np = numpy()
    header, questions = read_dump(args.dump)
    questions = serving_pool(questions, args.pool)
    names = feature_names(questions)
    excluded = {int(x) for x in args.exclude.split(",")} if args.exclude else set()
    chosen = [q for q in questions if q["chat"] not in excluded]
    data = matrix(np, chosen, names)
    mean, scale, w = fit(np, data, names, l2=args.l2, negatives=args.negatives, hidden=args.hidden, steps=args.steps)
    chats = sorted({q["chat"] for q in chosen})
    trained_on = (f"REALTALK chats {','.join(map(str, chats))} ({len(chosen)} questions), "
                  f"pairwise logistic, l2 {args.l2}")
    model = model_json(args.name or ("realtalk" + (f"-without-{args.exclude.replace(',', '-')}"
                                                   if excluded else "")),
                       header["embeddingModel"], names, mean, scale, w, trained_on)
    with open(args.out, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    fitted, n = evaluate(np, data, scorer(np, mean, scale, w))
    print(f"wrote {args.out}: {len(names)} features, trained on {n} questions "
          f"(in-sample @5 {fitted['@5']:.1f}, @10 {fitted['@10']:.1f})")


def report(args):
    """The fold table of cv-ranker.sh: each fold's held-out questions through a host serving the
    model trained without them; the mean over all questions; and the same-run fusion and
    all-conversation model on every question."""
    import glob

    def summary(path):
        with open(path) as f:
            result = json.load(f)
        return result["passes"][0]["summary"], result["passes"][0]

    folds = []
    for path in glob.glob(os.path.join(args.out_dir, "fold-*.json")):
        chat = int(os.path.basename(path)[5:-5])
        s, _ = summary(path)
        folds.append((chat, s))
    folds.sort()
    alone_names = sorted({p for _, s in folds for p in s.get("alone", {})})
    head = f"{'fold':>5} {'q':>4} {'stack@5':>8} {'stack@10':>8}" + "".join(
        f" {p + '@5':>12} {p + '@10':>12}" for p in alone_names)
    print(head)
    total_q = 0
    sums = {}
    for chat, s in folds:
        n = s["questions"]
        total_q += n
        line = f"{chat:>5} {n:>4} {100 * s['stack']['all']['@5']:8.1f} {100 * s['stack']['all']['@10']:8.1f}"
        sums.setdefault("stack@5", 0.0)
        sums["stack@5"] = sums["stack@5"] + s["stack"]["all"]["@5"] * n
        sums["stack@10"] = sums.get("stack@10", 0.0) + s["stack"]["all"]["@10"] * n
        for p in alone_names:
            a = s.get("alone", {}).get(p, {}).get("all")
            if a is None:  # the harness leaves a provider alone out when a call of it failed
                line += f" {'n/a':>12} {'n/a':>12}"
                continue
            line += f" {100 * a['@5']:12.1f} {100 * a['@10']:12.1f}"
            sums[p + "@5"] = sums.get(p + "@5", 0.0) + a["@5"] * n
            sums[p + "@10"] = sums.get(p + "@10", 0.0) + a["@10"] * n
            sums[p + "#"] = sums.get(p + "#", 0.0) + n
        print(line)
    table = {"stack@5": 100 * sums.get("stack@5", 0) / max(1, total_q),
             "stack@10": 100 * sums.get("stack@10", 0) / max(1, total_q)}
    for p in alone_names:
        for k in ("@5", "@10"):
            table[p + k] = 100 * sums.get(p + k, 0) / max(1, sums.get(p + "#", 0))
    line = f"{'all':>5} {total_q:>4} {table.get('stack@5', 0):8.1f} {table.get('stack@10', 0):8.1f}"
    for p in alone_names:
        line += f" {table[p + '@5']:12.1f} {table[p + '@10']:12.1f}"
    print(line + "   (mean over all questions, each answered by the fold that held it out;"
          " a provider alone over the folds where every call of it answered)")
    out = {"folds": [{"chat": c, "summary": s} for c, s in folds], "crossValidated": table}
    for label in ("fusion", "shipped-all"):
        path = os.path.join(args.out_dir, label + ".json")
        if os.path.exists(path):
            s, p = summary(path)
            alone = {k: (100 * v["all"]["@5"], 100 * v["all"]["@10"])
                     for k, v in s.get("alone", {}).items()}
            lat = p.get("latency_ms_limit5", {})
            print(f"{label:>12}: stack @5 {100 * s['stack']['all']['@5']:.1f} "
                  f"@10 {100 * s['stack']['all']['@10']:.1f}; alone "
                  + ", ".join(f"{k} {a:.1f}/{b:.1f}" for k, (a, b) in alone.items())
                  + f"; latency p50 {lat.get('p50', 0):.1f} p95 {lat.get('p95', 0):.1f} ms")
            out[label] = {"stack": s["stack"]["all"], "alone": alone, "latency": lat}
    with open(os.path.join(args.out_dir, "report.json"), "w") as f:
        json.dump(out, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("data")
    d.add_argument("--base-url", required=True)
    d.add_argument("--token", required=True)
    d.add_argument("--agent", default="realtalk")
    d.add_argument("--limit", type=int, default=200)
    d.add_argument("--out", required=True)
    d.add_argument("--texts", action="store_true",
                   help="keep each item's text and the question (for error analysis)")
    for name in ("train", "cv"):
        p = sub.add_parser(name)
        p.add_argument("dump")
        p.add_argument("--l2", type=float, default=1e-2)
        p.add_argument("--hidden", type=int, default=0, help="ReLU units beside the linear part")
        p.add_argument("--steps", type=int, default=300)
        p.add_argument("--pool", type=int, default=30,
                       help="memstack.stack.ranking.candidates of the serving host (0: all)")
        p.add_argument("--negatives", type=int, default=None,
                       help="only the first N non-gold items of each question (host order)")
        p.add_argument("--out", required=(name == "train"))
        if name == "train":
            p.add_argument("--exclude", default="")
            p.add_argument("--name", default="")
        else:
            p.add_argument("--drop", default="", help="feature name prefixes left out")
    r = sub.add_parser("report")
    r.add_argument("out_dir")
    args = parser.parse_args()
    {"dump": dump, "train": train, "cv": cv, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
