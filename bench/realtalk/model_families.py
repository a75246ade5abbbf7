#!/usr/bin/env python3
"""Other model families on the learned ranking's candidates, cross-validated by conversation
exactly as `ranker.py cv` (same dump, same pool, same features, same recall): gradient-boosted
trees trained pointwise (scikit-learn's HistGradientBoostingClassifier, each question's positives
and negatives weighed to one each) and pairwise / listwise (XGBoost rank:pairwise, rank:ndcg), and
the linear model with per-list transforms of every feature added (its rank in the list, its z-score
in the list, its gap to the list's best). Training only; the host serves the linear model.

  /usr/bin/python3 bench/realtalk/model_families.py DUMP [--pool 30]

Needs Debian's python3-sklearn and python3-xgboost (they install for /usr/bin/python3).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranker as R  # noqa: E402


def folds(np, data, train_and_score):
    total, n = {"@5": 0.0, "@10": 0.0}, 0
    for chat in sorted({d[2]["chat"] for d in data}):
        train = [d for d in data if d[2]["chat"] != chat and len(d[0])]
        test = [d for d in data if d[2]["chat"] == chat]
        result, k = R.evaluate(np, test, train_and_score(train))
        for key in total:
            total[key] += result[key] * k
        n += k
    return total["@5"] / n, total["@10"] / n


def pointwise(np, depth, iterations):
    from sklearn.ensemble import HistGradientBoostingClassifier

    def run(train):
        X = np.vstack([d[0] for d in train])
        y = np.concatenate([[1 if c else 0 for c in d[1]] for d in train])
        w = np.concatenate([[1 / max(1, sum(1 for c in d[1] if c)) if c else 1 / len(d[1])
                             for c in d[1]] for d in train])
        model = HistGradientBoostingClassifier(max_depth=depth, max_iter=iterations,
                                               learning_rate=0.05, l2_regularization=1.0,
                                               min_samples_leaf=50)
        model.fit(X, y, sample_weight=w)
        return model.decision_function
    return run


def xgboost_ranking(np, objective, depth, iterations):
    import xgboost as xgb

    def run(train):
        train = [d for d in train if any(d[1])]
        matrix = xgb.DMatrix(np.vstack([d[0] for d in train]),
                             label=np.concatenate([[1 if c else 0 for c in d[1]] for d in train]))
        matrix.set_group([len(d[0]) for d in train])
        booster = xgb.train({"objective": objective, "max_depth": depth, "eta": 0.05,
                             "min_child_weight": 5, "subsample": 0.8, "colsample_bytree": 0.8,
                             "lambda": 5, "nthread": 2, "seed": 7}, matrix, iterations)
        return lambda X: booster.predict(xgb.DMatrix(X))
    return run


def linear(np, names):
    def run(train):
        mean, scale, params = R.fit(np, train, names)
        return R.scorer(np, mean, scale, params)
    return run


def per_list(np, data, names, how):
    def extra(X):
        if len(X) == 0:
            return np.zeros((0, 2 * len(names)))
        if how == "rank":
            more = np.log1p(np.argsort(np.argsort(-X, axis=0, kind="stable"), axis=0))
        elif how == "z":
            more = (X - X.mean(axis=0)) / (X.std(axis=0) + 1e-6)
        else:
            more = X - X.max(axis=0)
        return np.hstack([X, more])
    return [(extra(X), c, q) for X, c, q in data], names + [f"{n}.{how}" for n in names]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dump")
    parser.add_argument("--pool", type=int, default=30)
    args = parser.parse_args()
    np = R.numpy()
    _, questions = R.read_dump(args.dump)
    questions = R.serving_pool(questions, args.pool)
    names = R.feature_names(questions)
    data = R.matrix(np, questions, names)
    rows = [("linear, pairwise (the host's)", lambda: folds(np, data, linear(np, names)))]
    for how in ("rank", "z", "gap"):
        rows.append((f"linear + each feature's {how} in the list",
                     lambda how=how: folds(np, *((lambda d, n: (d, linear(np, n)))(
                         *per_list(np, data, names, how))))))
    for depth, iterations in ((2, 300), (3, 200), (4, 400)):
        rows.append((f"trees, pointwise, depth {depth}, {iterations}",
                     lambda d=depth, i=iterations: folds(np, data, pointwise(np, d, i))))
    for objective in ("rank:pairwise", "rank:ndcg"):
        rows.append((f"trees, {objective}, depth 3, 200",
                     lambda o=objective: folds(np, data, xgboost_ranking(np, o, 3, 200))))
    print(f"{'model (cross-validated, pool ' + str(args.pool) + ')':<46} {'@5':>6} {'@10':>6}")
    for label, run in rows:
        at5, at10 = run()
        print(f"{label:<46} {at5:6.2f} {at10:6.2f}", flush=True)


if __name__ == "__main__":
    main()
