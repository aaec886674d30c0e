#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz targets (cpp/fuzz, docs/security.md) into
OUT/<target>/ (default: build/fuzz/seeds). scripts/fuzz.sh starts each target from these and the
checked-in corpus, then merges what it found back into tests/fuzz/corpus/<target> (-merge=1).

Only the standard library: .npy files are written byte by byte (numpy is not needed), .npz
archives with zipfile, slices of the real exports in web/data/real keep the seeds small.
"""
import io
import json
import os
import struct
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REAL = os.path.join(ROOT, "web", "data", "real")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "fuzz", "seeds")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(shape, values, descr="<f4", version=1, fortran=False, pad_to=64, dict_text=None):
    """A .npy file as numpy writes it (header padded with spaces to a multiple of pad_to)."""
    shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    text = dict_text or "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    prefix = 10 if version == 1 else 12
    total = prefix + len(text) + 1
    text = text + " " * ((-total) % pad_to) + "\n"
    head = b"\x93NUMPY" + bytes([version, 0])
    head += struct.pack("<H", len(text)) if version == 1 else struct.pack("<I", len(text))
    fmt = {"<f2": "e", "<f4": "f", "<f8": "d", "=f4": "f", ">f4": "f"}.get(descr, "f")
    order = ">" if descr.startswith(">") else "<"
    data = struct.pack(order + fmt * len(values), *values)
    return head + text.encode("latin-1") + data


def uniform(n_q, n_k):
    return [1.0 / n_k] * (n_q * n_k)


def causal(n):
    out = []
    for t in range(n):
        out += [1.0 / (t + 1) if j <= t else 0.0 for j in range(n)]
    return out


def npy_seeds():
    put("npy", "f32-2x3", npy((2, 3), uniform(2, 3)))
    put("npy", "f16-h2-3x3", npy((2, 3, 3), causal(3) * 2, descr="<f2"))
    put("npy", "f64-l2h1-2x2", npy((2, 1, 2, 2), [1, 0, 0.5, 0.5, 0.25, 0.75, 1, 0], descr="<f8"))
    put("npy", "f32-batch1-5d", npy((1, 1, 2, 2, 2), causal(2) * 4, version=2))
    put("npy", "f32-v3-logits", npy((2, 2), [0.0, -3.4028234663852886e38, 1.5, -2.0], version=3))
    put("npy", "f32-nan-inf", npy((2, 2), [float("nan"), 0.5, float("inf"), -float("inf")]))
    put("npy", "f32-fortran-1row", npy((1, 4), uniform(1, 4), fortran=True))
    put("npy", "f32-native-order", npy((1, 2), [0.5, 0.5], descr="=f4"))
    put("npy", "f16-subnormal", npy((1, 3), [5.96e-08, 6.1e-05, 65504.0], descr="<f2"))
    put("npy", "f32-python2-long", npy((2, 2), uniform(2, 2), dict_text="{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 2L), }"))
    put("npy", "f32-empty-axis", npy((0, 4), []))
    put("npy", "big-endian", npy((1, 2), [0.5, 0.5], descr=">f4"))
    put("npy", "int64", npy((1, 1), [0], dict_text="{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1), }")[:-4] + b"\0" * 8)
    put("npy", "object", npy((1,), [], dict_text="{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"))
    put("npy", "fortran-2d", npy((2, 2), uniform(2, 2), fortran=True))
    # Slices of the real exports: a truncated header, a header with part of the data.
    real = open(os.path.join(REAL, "gpt2-small_L5H5_induction_random-repeated", "attention.npy"), "rb").read()
    put("npy", "real-truncated-header", real[:60])
    put("npy", "real-truncated-data", real[:128 + 40 * 4 * 3])
    t5 = open(os.path.join(REAL, "NOT_PROBABILITIES_t5-small_decoder_L0_raw-scores", "scores.npy"), "rb").read()
    put("npy", "real-t5-scores-head", t5[:128] + t5[128:128 + 64])


def npz(members, compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def npz_seeds():
    a = npy((2, 2, 2), causal(2) * 2)
    put("npz", "stored-one", npz([("attention.npy", a)]))
    put("npz", "deflated-one", npz([("attention.npy", npy((3, 3), causal(3), descr="<f2"))], zipfile.ZIP_DEFLATED))
    put("npz", "two-members", npz([("attention.npy", a), ("scores.npy", npy((2, 2), [0, -1e38, 1, 2]))]))
    put("npz", "no-npy-member", npz([("readme.txt", b"hello")]))
    put("npz", "truncated-member", npz([("attention.npy", a[:-3])]))
    put("npz", "f64-deflated", npz([("attention.npy", npy((1, 2, 2), [1, 0, 0.5, 0.5], descr="<f8"))], zipfile.ZIP_DEFLATED))


def attention_json_seeds():
    put("attention_json", "ours-self", json.dumps({"tokens": ["a", "b"], "attention": [[[[1, 0], [0.5, 0.5]]]], "layers": [0], "heads": ["L0H0"]}))
    put("attention_json", "ours-cross", json.dumps({"queryTokens": ["x"], "keyTokens": ["a", "b"], "attention": [[0.25, 0.75]]}))
    put("attention_json", "circuitsvis", json.dumps({"tokens": ["a", "b", "c"], "attention": [[[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]]], "headLabels": ["h0"]}))
    put("attention_json", "bertviz-all", json.dumps({"all": {"attn": [[[[1, 0], [0.4, 0.6]]]], "left_text": ["a", "b"], "right_text": ["a", "b"]}}))
    put("attention_json", "bertviz-list", json.dumps([[[[[1, 0], [0.5, 0.5]]]], [[[[1, 0], [0.1, 0.9]]]]]))
    put("attention_json", "nulls-and-big", '{"tokens": null, "attention": [[null, 1e39], [-1e39, 0.5]]}')
    put("attention_json", "ragged", '{"attention": [[1, 0], [1]]}')
    put("attention_json", "state-not-attention", '{"version": 1, "heads": []}')
    put("attention_json", "bom-queries-fewer", "\ufeff" + json.dumps({"tokens": ["a", "b", "c"], "attention": [[0.5, 0.5, 0]]}))
    put("attention_json", "encoder-decoder", json.dumps({"encoder": {}, "decoder": {}}))
    put("attention_json", "labels-numbers", '{"attention": [[[1]], [[1]]], "heads": [0, 1.5], "layers": null}')
    real = open(os.path.join(REAL, "t5-small_encoder_L0_bidirectional", "attention.json"), encoding="utf-8").read()
    put("attention_json", "real-t5-prefix", real[:400])


def tokens_seeds():
    put("tokens", "json-list", json.dumps(["<|endoftext|>", " The", " cat", "ö"]))
    put("tokens", "lines-crlf", "[CLS]\r\nhello\r\nworld\r\n")
    put("tokens", "lines-bom", "\ufeffa\nb\n\nc")
    put("tokens", "json-object", '{"tokens": ["a"]}')
    put("tokens", "json-mixed", '["a", 1, null]')
    put("tokens", "invalid-utf8", b"caf\xc3\n\xff\xfe<b>x</b>\n")
    put("tokens", "real-t5", open(os.path.join(REAL, "t5-small_encoder_L0_bidirectional", "tokens.json"), "rb").read())


def base_state(**over):
    s = {
        "version": 1, "mode": "qkv",
        "heads": [{"name": "h", "Q": [[1, 0]], "K": [[1, 0], [0, 1]], "V": [[2, 0], [0, 4]], "logits": None, "weights": None}],
        "head": 0, "tokens": {"queries": ["q"], "keys": ["k1", "k2"]},
        "mask": {"causal": False, "window": 0, "padding": [False, False], "allow": None},
        "tau": 1, "scale": 1, "topK": 2, "row": 0,
        "view": {"panel": "weights", "preset": "example1", "numbers": "auto"}, "source": "seed",
    }
    s.update(over)
    return s


def three_by_three(mode="qkv"):
    heads = {
        "qkv": {"name": "a", "Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [0.5, 0.5]], "V": [[1, 2], [3, 4], [5, 6]]},
        "logits": {"name": "b", "logits": [[0, None, 1], [2, 0, -1], [None, None, 3]], "V": [[1], [2], [3]]},
        "weights": {"name": "c", "weights": [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]]},
    }[mode]
    return base_state(mode=mode, heads=[heads], tokens={"queries": ["a", "b", "c"], "keys": ["a", "b", "c"]},
                      mask={"causal": True, "window": 2, "padding": [False, False, False], "allow": None, "stride": 1, "sinks": 1},
                      topK=2, row=2, scale="auto", tau=0.5)


def x_state():
    return base_state(
        mode="x",
        heads=[{"name": "h0", "Q": None, "K": None, "V": None, "WQ": [[1, 0], [0, 1]], "WK": [[1, 0], [0, 1]], "WV": [[1], [0]], "gate": [0, -1, 2]},
               {"name": "h1", "WQ": [[0.5], [1]], "WK": [[1], [0.5]], "WV": [[0], [1]]}],
        x={"X": [[1, 0], [0, 1], [1, 1]], "WO": [[1, 0], [0, 1]], "residual": True},
        tokens={"queries": ["a", "b", "c"], "keys": ["a", "b", "c"]},
        mask={"causal": True, "window": 0, "padding": [False, False, False], "allow": None},
        scale="auto", row=1)


def state_seeds():
    put("state", "example1", json.dumps(base_state()))
    put("state", "qkv-3x3-masks", json.dumps(three_by_three("qkv")))
    put("state", "logits-nulls", json.dumps(three_by_three("logits")))
    put("state", "weights", json.dumps(three_by_three("weights")))
    s = three_by_three("qkv")
    s["mask"]["allow"] = [[True, False, True], [True, True, False], [False, True, True]]
    s["mask"]["padding"] = [False, True, False]
    s["heads"][0]["gate"] = [0, -20, 3]
    put("state", "allow-padding-gate", json.dumps(s))
    put("state", "mode-x", json.dumps(x_state()))
    put("state", "bad-tau", json.dumps(base_state(tau=0)))
    put("state", "bad-key", json.dumps(base_state(temperature=1)))
    put("state", "not-json", '{"version": 1, "mode": ')


def lab_seeds():
    views = {
        "patterns": {}, "normalisers": {"alpha": 2}, "sink": {"sinkKeys": 1}, "routing": {"delta": 0.2},
        "saturation": {"gapRange": 5, "jacobianKeys": 2}, "spectral": {"epsilon": 0.1},
        "linear": {"features": 8, "seed": 3}, "sweep": {"steps": 5}, "sensitivity": {},
    }
    for view, params in views.items():
        s = three_by_three("qkv")
        s["lab"] = {"view": view, "params": params}
        put("lab", view, json.dumps(s))
    s = x_state()
    s["lab"] = {"view": "sink", "params": {"compareHead": 1}}
    put("lab", "sink-mode-x", json.dumps(s))
    s = three_by_three("weights")
    s["lab"] = {"view": "routing"}
    put("lab", "routing-weights", json.dumps(s))
    s = base_state()
    s["lab"] = {"view": "nonesuch"}
    put("lab", "unknown-view", json.dumps(s))


def analyze_seeds():
    """Sections: option bytes \\n--\\n FILE \\n--\\n tokens \\n--\\n key tokens \\n--\\n --layers
    \\n--\\n --heads \\n--\\n --array \\n--\\n --top-k \\n--\\n --format \\n--\\n --read."""
    sep = b"\n--\n"

    def case(name, opts, file, tokens=b"", keys=b"", layers=b"0", heads=b"0-1", array=b"attention", top_k=b"2", fmt=b"csv", read=b"logits"):
        put("analyze", name, sep.join([bytes(opts), file, tokens, keys, layers, heads, array, top_k, fmt, read]))

    a = npy((1, 2, 3, 3), causal(3) * 2)
    case("npy-json", [], a)
    case("npy-csv-rows-tokens", [0, 1, 5, 2], a, tokens=b"a\nb\nc\n")
    case("npy-lists-topk", [7, 8, 10, 13], a, layers=b"0", heads=b"1,0", top_k=b"3")
    case("npz-array", [9, 14], npz([("attention.npy", a), ("scores.npy", npy((2, 2), [0, -1e38, 1, 2]))]))
    case("json-cross-tokens", [5, 6, 15], json.dumps({"attention": [[0.25, 0.75]]}).encode(), tokens=b'["x"]', keys=b'["a","b"]')
    case("logits-read", [12, 3, 2], npy((2, 2), [0, -1e38, 1, 2]), read=b"logits")
    case("invalid-utf8-tokens", [5], npy((2, 2), causal(2)), tokens=b"\xff\xfe\n\xc3(\n")
    case("usage-errors", [0xF9, 0xF8], a)
    case("nan-head", [11], npy((2, 2), [float("nan"), 0, 1, 0]), fmt=b"json")


if __name__ == "__main__":
    npy_seeds()
    npz_seeds()
    attention_json_seeds()
    tokens_seeds()
    state_seeds()
    lab_seeds()
    analyze_seeds()
    print("seeds written to", OUT)
