"""Independent reference for the TransformerLens head-detector scores (tests/node/import_checks.test.js).

A literal NumPy transcription of transformer_lens/head_detector.py (TransformerLensOrg/TransformerLens,
commit 4cd36aaeb5dad931d085bd5d46a12b402fe15272): get_previous_token_head_detection_pattern,
get_duplicate_token_head_detection_pattern, get_induction_head_detection_pattern and
compute_head_attention_similarity_score with detect_head's defaults (error_measure="mul",
exclude_bos=False, exclude_current_token=False), in float64. Tokens are compared as strings.

usage: python3 head_detector.py ATTENTION.npy TOKENS.json  ->  JSON [[prev, dup, ind], ...] per head
(layer-major), null where a score is not defined.
"""
import json
import sys

import numpy as np


def previous_pattern(n):
    p = np.zeros((n, n))
    p[1:, :-1] = np.eye(n - 1)
    return np.tril(p)


def duplicate_pattern(tokens):
    ids = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    tok = np.array([ids[t] for t in tokens])
    token_pattern = np.tile(tok, (len(tok), 1))
    eq = np.equal(token_pattern, token_pattern.T).astype(int)
    np.fill_diagonal(eq, 0)
    return np.tril(eq.astype(float))


def induction_pattern(tokens):
    dup = duplicate_pattern(tokens)
    shifted = np.roll(dup, 1, axis=1)
    result = np.concatenate([np.zeros((dup.shape[0], 1)), shifted[:, 1:]], axis=1)
    return np.tril(result)


def mul_score(a, p):
    return float((a * p).sum() / a.sum())


def main():
    att = np.load(sys.argv[1]).astype(np.float64)
    tokens = json.load(open(sys.argv[2], encoding="utf-8")) if len(sys.argv) > 2 else None
    n_q, n_k = att.shape[-2:]
    heads = att.reshape(-1, n_q, n_k)
    out = []
    for a in heads:
        if n_q != n_k:
            out.append([None, None, None])
            continue
        row = [mul_score(a, previous_pattern(n_q))]
        if tokens is not None and len(tokens) == n_k:
            row += [mul_score(a, duplicate_pattern(tokens)), mul_score(a, induction_pattern(tokens))]
        else:
            row += [None, None]
        out.append(row)
    json.dump(out, sys.stdout)


main()
