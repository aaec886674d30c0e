"""Show attention inline in a Jupyter notebook with the Attention Playground's one-file page.

    import sys; sys.path.insert(0, "python")        # or copy this file next to the notebook
    from attention_playground import show
    show(attention, tokens)                          # the last expression of a cell
    show(attention[5:6, 5:6], tokens, layers=[5], heads=[5])   # GPT-2 L5H5 alone, named so

The page is the one-file build (``npm run single-file`` writes dist/attention-playground.html); the
array travels into it as a .npy file and every number is computed by the playground's WebAssembly
core in the browser, exactly as when the file is dropped on the page's import view (docs/import.md).
Nothing is uploaded and the output cell needs no network. Needs numpy and the standard library
(IPython only to display).

The page is found, in order: the ``template=`` argument, the ``ATTN_HTML_TEMPLATE`` environment
variable, ``attention-playground.html`` next to this module, ``dist/attention-playground.html`` of
the checkout this module sits in.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import re
from pathlib import Path

import numpy as np

__all__ = ["page", "show", "find_template"]

_NAME = "attention-playground.html"
_BLOCK = re.compile(r'(<script type="application/json" id="ap-embedded" data-max-bytes="(\d+)">)(</script>)')


def find_template(template: str | os.PathLike | None = None) -> Path:
    """The one-file page to fill.

    Raises FileNotFoundError naming the places looked in when there is none.
    """
    if template is not None:
        if not Path(template).is_file():
            raise FileNotFoundError(f"no one-file page at {template}")
        return Path(template)
    here = Path(__file__).resolve().parent
    candidates = []
    if os.environ.get("ATTN_HTML_TEMPLATE"):
        candidates.append(Path(os.environ["ATTN_HTML_TEMPLATE"]))
    candidates += [here / _NAME, here.parent / "dist" / _NAME]
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(
        "no one-file page: run `npm run single-file` in the repository (writes dist/attention-playground.html), "
        "or pass template= / set ATTN_HTML_TEMPLATE; looked in: " + ", ".join(str(p) for p in candidates)
    )


def _too_large(size: int, limit: int) -> str:
    return (
        f"the input is {size / 2**20:.1f} MB; the one-file page embeds at most {limit / 2**20:.0f} MB "
        "(save it with numpy.save and open it in the page's import view instead)"
    )


def _tokens_list(tokens, n: int, what: str) -> list[str]:
    out = [str(t) for t in tokens]
    if len(out) != n:
        raise ValueError(f"{len(out)} {what} for an axis of length {n}")
    return out


# Page options (docs/embedding.md) of the notebook's page: the overview and the inspected head
# without the playground's preset, lesson, sharing and undo controls, which fill an output cell.
NOTEBOOK_OPTIONS = "preset_hide=1&share_hide=1&undo_hide=1&lesson_hide=1"


def page(attention, tokens=None, *, layers=None, heads=None, options=NOTEBOOK_OPTIONS, template=None) -> str:
    """The one-file page (an HTML document, str) with `attention` in its import view.

    attention   array-like of attention weights (rows sum to 1) or scores, shape [n_q, n_k],
                [heads, n_q, n_k] or [layers, heads, n_q, n_k] (a leading batch axis of 1 is
                accepted); sent as float32, or float16/float64 when given so. Or a playground
                state (a dict with "version", docs/state.md), shown in the playground.
    tokens      n token strings (the queries and the keys: n_q == n_k); optional
    layers      the model's numbers of the array's layers (e.g. [5] for GPT-2 layer 5 alone),
                one per layer; optional (default 0, 1, ...)
    heads       the model's numbers (or names) of the array's heads, one per head (e.g. [5]);
                optional. With layers or heads the array travels as attention JSON (about 5x the
                bytes of .npy, under the same limit), which carries the labels.
    options     page options as a link writes them (docs/embedding.md); "" shows the whole page

    Raises ValueError for a shape, token count or label count the page cannot read, or input
    larger than the page's limit (its data-max-bytes: 50 MB), FileNotFoundError without a
    one-file page.
    """
    text = find_template(template).read_text(encoding="utf-8")
    match = _BLOCK.search(text)
    if not match:
        raise ValueError("the template is not the one-file page (no empty ap-embedded block)")
    limit = int(match.group(2))
    if isinstance(attention, dict):
        if tokens is not None:
            raise ValueError("a state carries its own tokens")
        payload = {"kind": "state", "state": attention}
        size = len(json.dumps(attention))
    else:
        arr = np.asarray(attention)
        if arr.dtype not in (np.float16, np.float32, np.float64):
            arr = arr.astype(np.float32)
        if not 2 <= arr.ndim <= 5:
            raise ValueError(f"attention of shape {arr.shape}: expected [n_q, n_k] up to [1, layers, heads, n_q, n_k]")
        if arr.nbytes > limit:
            raise ValueError(_too_large(arr.nbytes, limit))
        names = None
        if tokens is not None:
            if arr.shape[-1] != arr.shape[-2]:
                raise ValueError("tokens name both queries and keys: for cross-attention, open the file in the page")
            names = _tokens_list(tokens, arr.shape[-2], "tokens")
        if layers is not None or heads is not None:
            # [layers, heads, n_q, n_k] as this page's attention JSON, with its layer and head labels.
            if arr.ndim == 5 and arr.shape[0] != 1:
                raise ValueError(f"attention of shape {arr.shape}: a batch axis must be 1")
            full = arr.reshape(arr.shape[-4:]) if arr.ndim == 5 else arr.reshape((1,) * (4 - arr.ndim) + arr.shape)
            doc = {"attention": full.astype(np.float64).tolist()}
            for key, labels, n in (("layers", layers, full.shape[0]), ("heads", heads, full.shape[1])):
                if labels is not None:
                    doc[key] = [str(x) for x in labels]
                    if len(doc[key]) != n:
                        raise ValueError(f"{len(doc[key])} {key} labels for {n} {key}")
            if names is not None:
                doc["tokens"] = names
            files = [{"name": "notebook-attention.json", "data": json.dumps(doc).encode()}]
        else:
            buf = io.BytesIO()
            np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
            files = [{"name": "notebook-attention.npy", "data": buf.getvalue()}]
            if names is not None:
                # Named for where the tokens came from (the page says "33 tokens from notebook-tokens.json").
                files.append({"name": "notebook-tokens.json", "data": json.dumps(names).encode()})
        size = sum(len(f["data"]) for f in files)
        payload = {
            "kind": "files",
            "files": [{"name": f["name"], "base64": base64.b64encode(f["data"]).decode("ascii")} for f in files],
        }
    if size > limit:
        raise ValueError(_too_large(size, limit))
    if options:
        payload["options"] = str(options)
    data = json.dumps(payload).replace("<", "\\u003c")  # safe inside <script>
    return text[: match.end(1)] + data + text[match.start(3) :]


def show(attention, tokens=None, *, layers=None, heads=None, options=NOTEBOOK_OPTIONS, height: int = 760, template=None):
    """Displays the page inline: an <iframe sandbox="allow-scripts allow-downloads" srcdoc=...> in a <div>.

    Arguments as page(); height: the frame's height in CSS pixels (default 760). Returns an
    IPython.display.HTML (displayed as the last expression of a cell), or the iframe's HTML text
    (str) without IPython. Each output holds the whole one-file page: about 1.8 MB per call in
    the saved .ipynb, plus the array (clear outputs you do not need before saving).
    """
    doc = page(attention, tokens, layers=layers, heads=heads, options=options, template=template)
    frame = (
        '<div class="attention-playground">'
        f'<iframe srcdoc="{html.escape(doc, quote=True)}" sandbox="allow-scripts allow-downloads" '
        f'style="width: 100%; height: {int(height)}px; border: 0;" title="Attention Playground" '
        "data-attention-playground></iframe></div>"
    )
    try:
        from IPython.display import HTML
    except ImportError:
        return frame
    return HTML(frame)
