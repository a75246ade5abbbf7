#!/usr/bin/env python3
"""Recall quality on REALTALK through the REST API of a running memstack host.

Ingests every message of the REALTALK conversations as a turn (one owner per conversation), waits
until the outbox has delivered everything, then asks every question of categories 1-3 as a context
call and scores recall@5 and recall@10 against the questions' evidence messages: for the stack
(the answer as returned), for each provider (its items in an explain call with limit 50) and
for each provider alone (the same calls restricted to that provider by the request's `providers`).
See bench/realtalk/README.md for the protocol. Python 3 standard library only.

    python3 realtalk_bench.py DATA_DIR --base-url http://127.0.0.1:8080 --token TOKEN \
        [--passes N] [--feedback] [--conversations 1,5] [--skip-ingest | --ingest-only] \
        [--out results.json]
"""

import argparse
import concurrent.futures
import http.client
import json
import os
import re
import statistics
import sys
import threading
import time
import unicodedata
import urllib.parse
from datetime import datetime, timezone

CATEGORIES = (1, 2, 3)
KS = (5, 10)
EXPLAIN_LIMIT = 50
QUESTIONS_CONVERSATION = "realtalk-questions"


# ---------------------------------------------------------------------------------------------
# HTTP: one keep-alive connection per thread


class Api:
    def __init__(self, base_url, token, timeout=60):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme != "http":
            raise SystemExit("--base-url must be http://host:port")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.prefix = parsed.path.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.local = threading.local()

    def _connection(self):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self.local.conn = conn
        return conn

    def call(self, method, path, body=None):
        """Returns (status, parsed JSON or None, headers, seconds)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(3):
            conn = self._connection()
            start = time.perf_counter()
            try:
                conn.request(method, self.prefix + path, body=data, headers=headers)
                response = conn.getresponse()
                raw = response.read()
                took = time.perf_counter() - start
            except (http.client.HTTPException, ConnectionError, OSError):
                conn.close()
                self.local.conn = None
                if attempt == 2:
                    raise
                time.sleep(0.5)
                continue
            parsed = None
            if raw:
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                self.local.conn = None
            return response.status, parsed, response, took
        raise RuntimeError("unreachable")


# ---------------------------------------------------------------------------------------------
# Data


def chat_number(path):
    match = re.match(r"Chat_(\d+)_", os.path.basename(path))
    return int(match.group(1)) if match else None


def load_chats(data_dir, only):
    files = sorted(
        (f for f in os.listdir(data_dir) if re.match(r"Chat_\d+_.*\.json$", f)),
        key=lambda f: chat_number(f),
    )
    if not files:
        raise SystemExit(f"no Chat_*.json in {data_dir}")
    chats = []
    for name in files:
        number = chat_number(name)
        if only and number not in only:
            continue
        with open(os.path.join(data_dir, name), encoding="utf-8") as f:
            chats.append((number, name, json.load(f)))
    return chats


def session_keys(chat):
    keys = [k for k in chat if re.fullmatch(r"session_\d+", k)]
    return sorted(keys, key=lambda k: int(k.split("_")[1]))


def iso_time(date_time):
    """'30.12.2023, 00:32:20' (taken as UTC) -> '2023-12-30T00:32:20Z'."""
    parsed = datetime.strptime(date_time.strip(), "%d.%m.%Y, %H:%M:%S")
    return parsed.replace(tzinfo=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def turns_of(number, chat, agent):
    owner = f"api:realtalk-{number}"
    for key in session_keys(chat):
        for m in chat[key]:
            text = f"{m['speaker']}: {m['clean_text']}"
            if m.get("blip_caption"):
                text += f" [shares {m['blip_caption']}]"
            yield {
                "ownerKey": owner,
                "conversationId": f"realtalk-{number}-{key}",
                "turnId": f"realtalk-{number}-{m['dia_id']}",
                "userMessage": text,
                "assistantReply": "",
                "triggerSource": "api",
                "time": iso_time(m["date_time"]),
            }


RANGE = re.compile(r"D(\d+):(\d+)-D(\d+):(\d+)")


def evidence_ids(evidence, messages, notes):
    """The evidence strings of one question as distinct message ids, in order (see README)."""
    ids = []
    for entry in evidence:
        for token in re.split(r"[;,\s]+", entry):
            token = token.rstrip(".")
            if not token:
                continue
            match = RANGE.fullmatch(token)
            if match and match.group(1) == match.group(3):
                first, last = int(match.group(2)), int(match.group(4))
                notes["ranges"] += 1
                ids.extend(f"D{match.group(1)}:{i}" for i in range(first, last + 1))
                continue
            if "-" in token:
                notes["ranges_not_understood"].append(token)
            ids.append(token)
    kept = []
    for i in ids:
        if i not in messages:
            notes["dropped"].append(i)
        elif i not in kept:
            kept.append(i)
        else:
            notes["repeated"] += 1
    return kept


def normalise(text):
    """NFKC, typographic quotes and dashes made plain, case-folded, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(QUOTES)
    return " ".join(text.casefold().split())


QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
     "\u2014": "-", "\u2026": "..."}
)


def load_questions(chats):
    notes = {"ranges": 0, "ranges_not_understood": [], "dropped": [], "repeated": 0,
             "without_evidence": 0, "other_categories": 0}
    questions = []
    for number, name, chat in chats:
        messages = {m["dia_id"]: m for key in session_keys(chat) for m in chat[key]}
        for qa in chat["qa"]:
            if qa.get("category") not in CATEGORIES:
                notes["other_categories"] += 1
                continue
            ids = evidence_ids(qa.get("evidence") or [], messages, notes)
            if not ids:
                notes["without_evidence"] += 1
                continue
            gold = [normalise(messages[i]["clean_text"]) for i in ids]
            strict = [normalise(f"{messages[i]['speaker']}: {messages[i]['clean_text']}")
                      for i in ids]
            questions.append({
                "index": len(questions),
                "chat": number,
                "owner": f"api:realtalk-{number}",
                "question": qa["question"],
                "category": qa["category"],
                "ids": ids,
                "gold": gold,
                "strict": strict,
            })
    return questions, notes


# ---------------------------------------------------------------------------------------------
# Scoring


def matched(items, gold):
    """Size of a maximum bipartite matching: item i covers gold g when g is contained in i's
    normalised text; each item covers at most one gold message and each gold message counts once."""
    texts = [normalise(item.get("text") or "") for item in items]
    return max_matching([[g for g, text in enumerate(gold) if gold[g] and gold[g] in t]
                         for t in texts])


def max_matching(edges):
    """Size of a maximum bipartite matching of items to gold messages, `edges[i]` listing the gold
    messages item i covers (augmenting paths, Kuhn's algorithm)."""
    owner_of = {}

    def augment(i, seen):
        for g in edges[i]:
            if g in seen:
                continue
            seen.add(g)
            if g not in owner_of or augment(owner_of[g], seen):
                owner_of[g] = i
                return True
        return False

    for i in range(len(edges)):
        if edges[i]:
            augment(i, set())
    return len(owner_of)


def recall_at(items, gold, k):
    return matched(items[:k], gold) / len(gold)


def item_id(item):
    metadata = item.get("metadata") or {}
    return metadata.get("id") or item.get("id")


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    rank = (len(values) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (rank - low)


def mean(values):
    return sum(values) / len(values) if values else None


# ---------------------------------------------------------------------------------------------
# Ingest


def outbox(api):
    status, body, _, _ = api.call("GET", "/api/v1/outbox")
    if status != 200 or not body:
        raise SystemExit(f"GET /api/v1/outbox answered {status}: {body}")
    return body


def ingest(api, chats, agent, clients):
    turns = [t for number, _, chat in chats for t in turns_of(number, chat, agent)]
    path = f"/api/v1/agents/{urllib.parse.quote(agent)}/memory/turns"
    refused = [0]
    errors = []
    lock = threading.Lock()
    before = {p["id"]: p.get("delivered", 0) for p in outbox(api).get("providers", [])}

    def post(turn):
        while True:
            status, body, response, _ = api.call("POST", path, turn)
            if status == 202:
                return
            if status == 503:
                with lock:
                    refused[0] += 1
                retry = response.getheader("Retry-After")
                time.sleep(min(float(retry), 2.0) if retry and retry.isdigit() else 0.5)
                continue
            with lock:
                errors.append((turn["turnId"], status, body))
            return

    print(f"ingest: {len(turns)} turns from {len(chats)} conversations, {clients} clients",
          flush=True)
    start = time.perf_counter()
    # A conversation's turns are posted one after another, in order, as a chat client does (the
    # clients work on different conversations at once): providers see each conversation in order.
    conversations = {}
    for turn in turns:
        conversations.setdefault(turn["conversationId"], []).append(turn)

    def post_all(conversation):
        for turn in conversation:
            post(turn)

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(post_all, conversations.values()))
    accepted = time.perf_counter() - start
    last_report = 0.0
    while True:
        state = outbox(api)
        pending = {p["id"]: p.get("pending", 0) for p in state.get("providers", [])}
        if all(v == 0 for v in pending.values()):
            break
        now = time.perf_counter() - start
        if now - last_report >= 10:
            print(f"  {now:.0f} s: pending {pending}", flush=True)
            last_report = now
        time.sleep(0.25)
    delivered_s = time.perf_counter() - start
    delivered = {p["id"]: p.get("delivered", 0) - before.get(p["id"], 0)
                 for p in state.get("providers", [])}
    result = {
        "turns": len(turns),
        "clients": clients,
        "accepted_seconds": round(accepted, 2),
        "accepted_per_second": round(len(turns) / accepted, 1),
        "delivered_seconds": round(delivered_s, 2),
        "delivered_per_second": round(len(turns) / delivered_s, 1),
        "refused_503": refused[0],
        "errors": len(errors),
        "delivered_by_provider": delivered,
    }
    if errors:
        print(f"  {len(errors)} turns refused, first: {errors[0]}", file=sys.stderr)
    print(f"  accepted in {accepted:.1f} s ({result['accepted_per_second']} turns/s), delivered to"
          f" every provider in {delivered_s:.1f} s ({result['delivered_per_second']} turns/s);"
          f" 503s waited out: {refused[0]}; errors: {len(errors)}; delivered {delivered}",
          flush=True)
    return result


# ---------------------------------------------------------------------------------------------
# Questions


def ask(api, agent, question, limit, explain=False, providers=None):
    body = {"ownerKey": question["owner"], "conversationId": QUESTIONS_CONVERSATION,
            "query": question["question"], "limit": limit}
    if explain:
        body["explain"] = True
    if providers:
        body["providers"] = providers
    path = f"/api/v1/agents/{urllib.parse.quote(agent)}/memory/context"
    status, answer, _, took = api.call("POST", path, body)
    if status != 200 or answer is None:
        raise SystemExit(f"context call answered {status}: {answer}")
    return answer, took


def run_pass(api, agent, questions, clients, alone=True):
    """Three context calls per question: limit 5, limit 10, limit 50 with explain; with `alone`,
    also limit 5 and limit 10 from each answering provider on its own (the request's `providers`),
    which is what that provider recalls without the others, in the same run on the same data."""

    def one(question):
        five, took = ask(api, agent, question, 5)
        ten, _ = ask(api, agent, question, 10)
        explain, _ = ask(api, agent, question, EXPLAIN_LIMIT, explain=True)
        solo = {}
        if alone:
            answering = [r["id"] for r in five.get("providers", []) if r["status"] == "ok"]
            if len(answering) > 1:
                for provider in answering:
                    solo[provider] = (ask(api, agent, question, 5, providers=[provider])[0],
                                      ask(api, agent, question, 10, providers=[provider])[0])
        return question, five, took, ten, explain, solo

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        return list(pool.map(one, questions))


def score_pass(results, providers):
    rows = []
    latencies = []
    took_by_provider = {}
    statuses = {}
    observations = {"answers": 0, "items_limit10": 0, "file_blocks_limit10": 0,
                    "answers_with_duplicate_text_limit10": 0, "items_by_provider_limit50": {},
                    "explain_chars": [], "explain_items": []}
    for question, five, took, ten, explain, solo in results:
        latencies.append(took * 1000)
        for report in five.get("providers", []):
            statuses.setdefault(report["id"], {}).setdefault(report["status"], 0)
            statuses[report["id"]][report["status"]] += 1
            if report["status"] == "ok":
                took_by_provider.setdefault(report["id"], []).append(report.get("tookMs", 0))
        row = {"index": question["index"], "category": question["category"],
               "stack": {}, "strict_stack": {}, "providers": {}, "alone": {}}
        for provider, (solo_five, solo_ten) in solo.items():
            row["alone"][provider] = {
                5: recall_at(solo_five.get("recall", []), question["gold"], 5),
                10: recall_at(solo_ten.get("recall", []), question["gold"], 10)}
        for k, answer in ((5, five), (10, ten)):
            items = answer.get("recall", [])
            row["stack"][k] = recall_at(items, question["gold"], k)
            row["strict_stack"][k] = recall_at(items, question["strict"], k)
        explain_items = explain.get("recall", [])
        for provider in providers:
            own = [i for i in explain_items if i.get("provider") == provider
                   or provider in ((i.get("metadata") or {}).get("stack.duplicates") or "").split(",")]
            row["providers"][provider] = {k: recall_at(own, question["gold"], k) for k in KS}
            observations["items_by_provider_limit50"].setdefault(provider, []).append(len(own))
        observations["explain_chars"].append(len(explain.get("context", "")))
        observations["explain_items"].append(len(explain_items))
        items10 = ten.get("recall", [])
        observations["answers"] += 1
        observations["items_limit10"] += len(items10)
        observations["file_blocks_limit10"] += sum(
            1 for i in items10 if (i.get("text") or "").startswith("--- "))
        texts = [normalise(i.get("text") or "") for i in items10]
        if len(set(texts)) < len(texts):
            observations["answers_with_duplicate_text_limit10"] += 1
        observations["cross_provider_copies_limit10"] = observations.get(
            "cross_provider_copies_limit10", 0) + cross_provider_copies(items10)
        rows.append(row)
    return rows, latencies, took_by_provider, statuses, observations


ROLE_PREFIX = re.compile(r"^(user|assistant): ")


def cross_provider_copies(items):
    """Items whose text (without a leading role) another provider's item in the same answer
    contains: the same message recalled twice, e.g. as a vector record and in a daily note."""
    texts = [ROLE_PREFIX.sub("", normalise(i.get("text") or "")) for i in items]
    copies = 0
    for a, item in enumerate(items):
        for b, other in enumerate(items):
            if a != b and item.get("provider") != other.get("provider") and texts[a] \
                    and texts[a] in texts[b]:
                copies += 1
                break
    return copies


def summarise(rows, providers, subset=None):
    chosen = [r for r in rows if subset is None or subset(r)]

    def block(select):
        out = {}
        for name, test in [("all", lambda r: True)] + [
                (f"cat{c}", (lambda c: lambda r: r["category"] == c)(c)) for c in CATEGORIES]:
            values = [r for r in chosen if test(r)]
            out[name] = {f"@{k}": mean([select(r)[k] for r in values]) for k in KS}
            out[name]["questions"] = len(values)
        return out

    summary = {"questions": len(chosen), "stack": block(lambda r: r["stack"]),
               "stack_speaker_anchored": block(lambda r: r["strict_stack"])}
    summary["providers"] = {p: block(lambda r, p=p: r["providers"][p]) for p in providers}
    alone = sorted({p for r in chosen for p in r["alone"]})
    summary["alone"] = {p: block(lambda r, p=p: r["alone"][p]) for p in alone
                        if all(p in r["alone"] for r in chosen)}
    return summary


def feedback(api, agent, questions, results, state):
    """For the even-index questions: the limit-50 items that contain a gold message, as 'used'."""
    path = f"/api/v1/agents/{urllib.parse.quote(agent)}/memory/feedback"
    sent = items = 0
    for question, _, _, _, explain, _ in results:
        if question["index"] % 2 != 0:
            continue
        used = []
        for item in explain.get("recall", []):
            text = normalise(item.get("text") or "")
            if any(g and g in text for g in question["gold"]):
                identifier = item_id(item)
                if identifier:
                    used.append({"provider": item.get("provider"), "id": identifier})
        if not used:
            continue
        status, body, _, _ = api.call("POST", path, {"ownerKey": question["owner"], "used": used})
        if status == 404:
            state["supported"] = False
            state["detail"] = f"404 {body}"
            print(f"feedback: unsupported by this host (404 {body}); continuing without it",
                  flush=True)
            return
        if status >= 300:
            state.setdefault("errors", []).append(status)
            continue
        sent += 1
        items += len(used)
    state["supported"] = True
    state.setdefault("calls", []).append({"posts": sent, "items": items})
    print(f"feedback: {sent} posts with {items} used items", flush=True)


# ---------------------------------------------------------------------------------------------
# Output


def pct(value):
    return "  -  " if value is None else f"{100 * value:5.1f}"


def print_summary(title, summary):
    print(f"\n{title} ({summary['questions']} questions), recall in %")
    header = f"{'':18}" + "".join(f"{name:>14}" for name in ("all", "cat 1", "cat 2", "cat 3"))
    print(header)
    print(f"{'':18}" + "".join(f"{'@5':>7}{'@10':>7}" for _ in range(4)))

    def line(label, block):
        cells = ""
        for name in ("all", "cat1", "cat2", "cat3"):
            cells += f"{pct(block[name]['@5']):>7}{pct(block[name]['@10']):>7}"
        print(f"{label:18}{cells}")

    line("stack", summary["stack"])
    for provider, block in summary["providers"].items():
        line(f"  {provider} (limit 50)", block)
    for provider, block in summary.get("alone", {}).items():
        line(f"  {provider} alone", block)
    line("stack, speaker+text", summary["stack_speaker_anchored"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", help="folder with the REALTALK Chat_*.json files")
    parser.add_argument("--base-url", required=True, help="the host, e.g. http://127.0.0.1:8080")
    parser.add_argument("--token", required=True, help="an admin token of the host")
    parser.add_argument("--agent", default="realtalk")
    parser.add_argument("--conversations", default="",
                        help="comma-separated chat numbers (Chat_<n>_...), default all")
    parser.add_argument("--clients", type=int, default=4, help="concurrent ingest clients (4)")
    parser.add_argument("--query-clients", type=int, default=1,
                        help="concurrent question clients (1, so latencies are unloaded)")
    parser.add_argument("--passes", type=int, default=1, help="times the question set is asked")
    parser.add_argument("--feedback", action="store_true",
                        help="between passes, send feedback for the even-index questions")
    parser.add_argument("--skip-ingest", "--questions-only", dest="skip_ingest",
                        action="store_true", help="the host has the turns already")
    parser.add_argument("--ingest-only", action="store_true", help="ingest and stop")
    parser.add_argument("--no-alone", action="store_true",
                        help="do not also ask each provider on its own (the 'alone' figures)")
    parser.add_argument("--out", help="write every figure to this JSON file")
    parser.add_argument("--label", default="", help="free text stored in the JSON")
    args = parser.parse_args()

    only = {int(x) for x in args.conversations.split(",") if x.strip()}
    api = Api(args.base_url, args.token)
    chats = load_chats(args.data_dir, only)
    questions, notes = load_questions(chats)
    ids = sum(len(q["ids"]) for q in questions)
    print(f"questions: {len(questions)} of categories 1-3 with evidence, {ids} evidence ids"
          f" (ranges expanded: {notes['ranges']}, ids naming no message dropped:"
          f" {len(notes['dropped'])}, repeated ids: {notes['repeated']}, questions left without"
          f" evidence: {notes['without_evidence']})", flush=True)
    if notes["ranges_not_understood"]:
        print(f"  ranges not understood: {notes['ranges_not_understood']}")

    result = {
        "label": args.label,
        "started": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "base_url": args.base_url,
        "agent": args.agent,
        "conversations": [c[0] for c in chats],
        "load_average_start": load_average(),
        "questions": len(questions),
        "evidence_ids": ids,
        "evidence_notes": {**notes, "dropped": notes["dropped"]},
        "categories": {f"cat{c}": sum(1 for q in questions if q["category"] == c)
                       for c in CATEGORIES},
    }
    status, info, _, _ = api.call("GET", "/api/v1/providers")
    result["host_providers"] = info

    if not args.skip_ingest:
        result["ingest"] = ingest(api, chats, args.agent, args.clients)
    if args.ingest_only:
        write(args.out, result)
        return

    # one unscored call first: the first call after a start pays for cold code paths (and may
    # exceed the provider timeout), which a running host has long paid
    ask(api, args.agent, questions[0], 5)
    passes = []
    feedback_state = {"enabled": args.feedback}
    providers = None
    for number in range(1, args.passes + 1):
        start = time.perf_counter()
        results = run_pass(api, args.agent, questions, args.query_clients, not args.no_alone)
        seconds = time.perf_counter() - start
        if providers is None:
            seen = []
            for _, five, _, _, explain, _ in results:
                for report in five.get("providers", []):
                    if report["status"] != "disabled" and report["id"] not in seen:
                        seen.append(report["id"])
            providers = seen
        rows, latencies, took, statuses, observations = score_pass(results, providers)
        entry = {
            "pass": number,
            "seconds": round(seconds, 1),
            "load_average": load_average(),
            "summary": summarise(rows, providers),
            "even_half": summarise(rows, providers, lambda r: r["index"] % 2 == 0),
            "odd_half": summarise(rows, providers, lambda r: r["index"] % 2 == 1),
            "latency_ms_limit5": {"p50": percentile(latencies, 50),
                                  "p95": percentile(latencies, 95),
                                  "max": max(latencies)},
            "host_took_ms_median": {p: statistics.median(v) for p, v in took.items()},
            "host_took_ms_p95": {p: percentile(v, 95) for p, v in took.items()},
            "provider_status_limit5": statuses,
            "observations": {
                "items_per_answer_limit10": observations["items_limit10"]
                / max(1, observations["answers"]),
                "file_blocks_share_limit10": observations["file_blocks_limit10"]
                / max(1, observations["items_limit10"]),
                "answers_with_duplicate_text_limit10":
                    observations["answers_with_duplicate_text_limit10"],
                "cross_provider_copies_per_answer_limit10":
                    observations.get("cross_provider_copies_limit10", 0)
                    / max(1, observations["answers"]),
                "items_by_provider_limit50_mean": {
                    p: mean(v) for p, v in observations["items_by_provider_limit50"].items()},
                "items_limit50_mean": mean(observations["explain_items"]),
                "context_chars_limit50_mean": mean(observations["explain_chars"]),
            },
            "per_question": [{"index": r["index"], "stack@5": r["stack"][5],
                              "stack@10": r["stack"][10]} for r in rows],
        }
        passes.append(entry)
        print_summary(f"pass {number} ({seconds:.0f} s, load {entry['load_average']})",
                      entry["summary"])
        if args.feedback:
            print_summary(f"pass {number}, even half (feedback half)", entry["even_half"])
            print_summary(f"pass {number}, odd half", entry["odd_half"])
        lat = entry["latency_ms_limit5"]
        print(f"context latency (limit 5, client): p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f}"
              f" ms; host tookMs medians {entry['host_took_ms_median']}; statuses {statuses}")
        print(f"observations: {json.dumps(entry['observations'])}", flush=True)
        if args.feedback and number < args.passes and feedback_state.get("supported", True):
            feedback(api, args.agent, questions, results, feedback_state)

    result["passes"] = passes
    result["feedback"] = feedback_state
    result["spread"] = spread(passes, providers)
    result["load_average_end"] = load_average()
    if len(passes) > 1:
        print(f"\nacross {len(passes)} passes (recall in %, min / max / spread):")
        for name, s in result["spread"].items():
            print(f"  {name:28} {pct(s['min'])} / {pct(s['max'])} / {pct(s['spread'])}")
    write(args.out, result)


def spread(passes, providers):
    out = {}
    groups = [("", "summary"), ("even ", "even_half"), ("odd ", "odd_half")]
    for prefix, key in groups:
        for k in KS:
            series = {f"{prefix}stack@{k}": [p[key]["stack"]["all"][f"@{k}"] for p in passes]}
            for provider in providers or []:
                series[f"{prefix}{provider}@{k}"] = [
                    p[key]["providers"][provider]["all"][f"@{k}"] for p in passes]
            for name, values in series.items():
                out[name] = {"min": min(values), "max": max(values),
                             "spread": max(values) - min(values), "passes": values}
    return out


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def write(path, result):
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
        print(f"figures written to {path}")


if __name__ == "__main__":
    main()
