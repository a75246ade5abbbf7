#!/usr/bin/env python3
"""Views of a message that carry its context, measured offline before building them into a
provider: each REALTALK message embedded with the turn before it ("before" view) and with the turn
after it ("after" view), by the host's own model (EmbedTexts.java), then

- as ranking features: the question's cosine to each candidate's views (and the gap to the best in
  the list) added to the learned ranking's features of a candidates dump (`ranker.py dump --texts`),
  cross-validated by conversation against the same dump without them;
- as extra keys: candidate recall of each provider's first 30 (the host's pool) against that pool
  joined with the first 30 messages by each view.

  context_views.py texts REALTALK_DIR WORK            (writes WORK/views.txt, WORK/views.json)
  context_views.py eval  REALTALK_DIR WORK DUMP       (after EmbedTexts wrote WORK/views.f32)
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranker as R  # noqa: E402
import realtalk_bench as rb  # noqa: E402

POOL = 30


def line_of(m):
    text = f"{m['speaker']}: {m['clean_text']}"
    if m.get("blip_caption"):
        text += f" [shares {m['blip_caption']}]"
    return text


def texts(data, work):
    chats = rb.load_chats(data, None)
    questions, _ = rb.load_questions(chats)
    lines, index = [], {}
    for number, _, chat in chats:
        messages = [m for key in rb.session_keys(chat) for m in chat[key]]
        for i, m in enumerate(messages):
            this = line_of(m)
            before = line_of(messages[i - 1]) + "\n" + this if i > 0 else this
            after = this + "\n" + line_of(messages[i + 1]) if i + 1 < len(messages) else this
            index.setdefault(str(number), {})[rb.normalise(this)] = len(lines) // 2
            lines.append("P " + before.replace("\n", "\\n"))
            lines.append("P " + after.replace("\n", "\\n"))
    messages = len(lines) // 2
    for q in questions:
        lines.append("Q " + q["question"].replace("\n", " "))
    with open(os.path.join(work, "views.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(work, "views.json"), "w") as f:
        json.dump({"index": index, "messages": messages}, f)
    print(f"{messages} messages, {len(questions)} questions: {len(lines)} texts to embed")


def message_of(text):
    """The chat line of a candidate's text: vector's "user: <line>", builtin's paragraph."""
    m = re.search(r"\*\*user:\*\* (.*)$", text)
    if m:
        return m.group(1).strip()
    return (text[len("user: "):] if text.startswith("user: ") else text).strip()


def cv(np, questions, names):
    data = R.matrix(np, questions, names)
    total, n, folds = {"@5": 0.0, "@10": 0.0}, 0, []
    for chat in sorted({q["chat"] for q in questions}):
        train = [d for d in data if d[2]["chat"] != chat]
        test = [d for d in data if d[2]["chat"] == chat]
        mean, scale, params = R.fit(np, train, names)
        result, k = R.evaluate(np, test, R.scorer(np, mean, scale, params))
        folds.append(f"{chat}:{result['@5']:.1f}")
        for key in total:
            total[key] += result[key] * k
        n += k
    return total["@5"] / n, total["@10"] / n, " ".join(folds)


def evaluate(data, work, dump):
    np = R.numpy()
    meta = json.load(open(os.path.join(work, "views.json")))
    vectors = np.fromfile(os.path.join(work, "views.f32"), dtype="<f4").reshape(-1, 384)
    n = meta["messages"]
    before, after, queries = vectors[0:2 * n:2], vectors[1:2 * n:2], vectors[2 * n:]
    _, questions = R.read_dump(dump)
    questions = R.serving_pool(questions, POOL)
    unmatched = total = 0
    for q in questions:
        index = meta["index"][str(q["chat"])]
        for item in q["items"]:
            text = message_of(item["t"])
            j = index.get(text)
            if j is None:  # a builtin paragraph may carry more than the line
                j = next((v for k, v in index.items() if text.startswith(k[:60])), None)
            total += 1
            unmatched += j is None
            query = queries[q["index"]]
            item["f"]["view.before"] = 0.0 if j is None else float(before[j] @ query)
            item["f"]["view.after"] = 0.0 if j is None else float(after[j] @ query)
        for view in ("view.before", "view.after"):
            best = max((i["f"][view] for i in q["items"]), default=0.0)
            for item in q["items"]:
                item["f"][view + ".gap"] = best - item["f"][view]
    print(f"candidates matched to their message: {total - unmatched} of {total}")
    every = R.feature_names(questions)
    rows = [("without views", [f for f in every if not f.startswith("view.")]),
            ("with both views", every),
            ("with the before view", [f for f in every if not f.startswith("view.after")]),
            ("with the after view", [f for f in every if not f.startswith("view.before")])]
    print(f"{'ranking features (cross-validated)':<36} {'@5':>6} {'@10':>6}  folds @5")
    for label, names in rows:
        at5, at10, folds = cv(np, questions, names)
        print(f"{label:<36} {at5:6.2f} {at10:6.2f}  {folds}")
    # extra keys: the pool joined with each view's first POOL messages of the owner
    chats = rb.load_chats(data, None)
    gold_questions, _ = rb.load_questions(chats)
    messages = [None] * n
    spans = {}
    for chat, index in meta["index"].items():
        for text, j in index.items():
            messages[j] = text
        spans[int(chat)] = (min(index.values()), max(index.values()) + 1)
    sums = {"pool": 0.0, "pool+before": 0.0, "pool+both": 0.0}
    for q, asked in zip(gold_questions, questions):
        first, last = spans[q["chat"]]

        def top(view):
            order = np.argsort(-(view[first:last] @ queries[q["index"]]))[:POOL]
            return [[g for g, gold in enumerate(q["gold"]) if gold and gold in (messages[first + i] or "")]
                    for i in order]

        pool = [i["c"] for i in asked["items"]]
        b, a = top(before), top(after)
        for label, lists in (("pool", pool), ("pool+before", pool + b), ("pool+both", pool + b + a)):
            sums[label] += len({g for c in lists for g in c}) / len(q["gold"])
    print("candidate recall: " + ", ".join(f"{k} {100 * v / len(gold_questions):.1f}"
                                           for k, v in sums.items()))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "texts":
        texts(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "eval":
        evaluate(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
