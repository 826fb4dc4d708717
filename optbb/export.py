"""Export every optbb model as text, JSON (round-trips to an identical model), LaTeX and Graphviz DOT.

* :class:`optbb.corels.RuleList` (CORELS) and :class:`optbb.frl.FallingRuleList` (FRL, softFRL): text, JSON,
  LaTeX as an ``algorithmic`` environment (like the C++ CORELS ``-L`` option).
* :class:`optbb.osdt.Tree` (OSDT): text, JSON, LaTeX (nested ``algorithmic``), Graphviz DOT.

The same functions are methods of the models (``model.to_json()``, ``Model.from_json(s)``, ``model.to_latex()``,
``tree.to_dot()``)::

    from optbb import export
    s = export.to_json(result.model)
    assert export.to_json(export.from_json(s)) == s
    print(export.to_latex(result.model))
"""
from __future__ import annotations

import json

import numpy as np

__all__ = ["to_text", "to_json", "from_json", "to_latex", "to_dot"]


def _plain(v):
    """JSON-safe Python value (numpy scalars and arrays to Python, tuples to lists)."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def latex_escape(s: str) -> str:
    """Escape the LaTeX special characters of a feature or label name."""
    out = str(s)
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}"),
                 ("<", r"$<$"), (">", r"$>$")):
        out = out.replace(a, b)
    return out


# -- rule lists (CORELS) -------------------------------------------------------------------------------------------
def rule_list_to_dict(rl) -> dict:
    return {"model": "RuleList", "rules": [_plain(vars(r)) for r in rl.rules],
            "default_prediction": int(rl.default_prediction), "label_names": [str(x) for x in rl.label_names],
            "default_captured": int(rl.default_captured), "default_correct": int(rl.default_correct),
            "n_samples": int(rl.n_samples), "objective": float(rl.objective),
            "regularization": float(rl.regularization), "meta": _plain(rl.meta)}


def rule_list_from_dict(d: dict):
    from .corels.model import Rule, RuleList

    d = {k: v for k, v in d.items() if k != "model"}
    d["rules"] = [Rule(**r) for r in d["rules"]]
    d["label_names"] = tuple(d["label_names"])
    return RuleList(**d)


def rule_list_to_latex(rl) -> str:
    """``algorithmic`` environment as the C++ CORELS ``-L`` option writes it (``\\If``, ``\\ElsIf``, ``\\Else``)."""
    lab = rl.label_names
    lines = [r"\begin{algorithmic}", r"\normalsize"]
    for k, r in enumerate(rl.rules):
        kw = r"\If" if k == 0 else r"\ElsIf"
        lines.append(f"{kw} {{$({latex_escape(r.name)})$}}")
        lines.append(rf"\State $\text{{{latex_escape('prediction')}}} = \text{{{latex_escape(lab[r.prediction])}}}$")
    if rl.rules:
        lines.append(r"\Else")
    lines.append(rf"\State $\text{{prediction}} = \text{{{latex_escape(lab[rl.default_prediction])}}}$")
    if rl.rules:
        lines.append(r"\EndIf")
    lines.append(r"\end{algorithmic}")
    return "\n".join(lines)


# -- falling rule lists (FRL, softFRL) -----------------------------------------------------------------------------
def falling_to_dict(fl) -> dict:
    return {"model": "FallingRuleList",
            "antecedents": [{"features": [int(f) for f in a.features], "negated": [bool(n) for n in a.negated]}
                            for a in fl.antecedents],
            "names": [str(n) for n in fl.names], "probabilities": _plain(np.asarray(fl.probabilities, float)),
            "proportions": _plain(np.asarray(fl.proportions, float)), "n_pos": _plain(np.asarray(fl.n_pos)),
            "n_neg": _plain(np.asarray(fl.n_neg)), "positive_weight": float(fl.positive_weight),
            "objective": float(fl.objective), "soft": bool(fl.soft),
            "feature_names": [str(n) for n in fl.feature_names]}


def falling_from_dict(d: dict):
    from .common.mining import Antecedent
    from .frl.model import FallingRuleList

    return FallingRuleList(
        [Antecedent(tuple(a["features"]), tuple(a["negated"])) for a in d["antecedents"]], list(d["names"]),
        np.asarray(d["probabilities"], dtype=np.float64), np.asarray(d["proportions"], dtype=np.float64),
        np.asarray(d["n_pos"], dtype=np.int64), np.asarray(d["n_neg"], dtype=np.int64), d["positive_weight"],
        d["objective"], d["soft"], list(d["feature_names"]))


def falling_to_latex(fl) -> str:
    """``algorithmic`` environment, each clause with its probability of the positive class."""
    lines = [r"\begin{algorithmic}", r"\normalsize"]
    probs = np.asarray(fl.probabilities, dtype=float)
    for k, name in enumerate(fl.names):
        kw = r"\If" if k == 0 else r"\ElsIf"
        lines.append(f"{kw} {{$({latex_escape(name)})$}}")
        lines.append(rf"\State $P(y=1) = {probs[k]:.4f}$")
    if len(fl):
        lines.append(r"\Else")
    lines.append(rf"\State $P(y=1) = {probs[len(fl)]:.4f}$")
    if len(fl):
        lines.append(r"\EndIf")
    lines.append(r"\end{algorithmic}")
    return "\n".join(lines)


# -- trees (OSDT) --------------------------------------------------------------------------------------------------
def tree_to_dict(t) -> dict:
    return {"model": "Tree", "leaves": [[list(lit) for lit in leaf] for leaf in t.leaves],
            "predictions": [int(p) for p in t.predictions], "feature_names": [str(n) for n in t.feature_names],
            "n_samples": [int(n) for n in t.n_samples], "errors": [int(e) for e in t.errors],
            "classes": None if t.classes is None else _plain(list(t.classes)),
            "structure": t.to_dict()}


def tree_from_dict(d: dict):
    from .osdt.model import Tree

    return Tree([tuple(tuple(lit) for lit in leaf) for leaf in d["leaves"]], d["predictions"], d["feature_names"],
                d["n_samples"], d["errors"], d["classes"])


def tree_to_latex(t) -> str:
    """Nested ``algorithmic`` if/else over the tree's splits."""
    lines = [r"\begin{algorithmic}", r"\normalsize"]

    def rec(node):
        if "prediction" in node:
            lines.append(rf"\State $\text{{prediction}} = \text{{{latex_escape(node['prediction'])}}}$")
            return
        lines.append(f"\\If {{$({latex_escape(node['name'])})$}}")
        rec(node["true"])
        lines.append(r"\Else")
        rec(node["false"])
        lines.append(r"\EndIf")

    rec(t.to_dict())
    lines.append(r"\end{algorithmic}")
    return "\n".join(lines)


# -- dispatch ------------------------------------------------------------------------------------------------------
def _kind(model) -> str:
    name = type(model).__name__
    if name in ("RuleList", "FallingRuleList", "Tree"):
        return name
    raise TypeError(f"no exporter for {name}; expected a RuleList, FallingRuleList or Tree")


def to_dict(model) -> dict:
    return {"RuleList": rule_list_to_dict, "FallingRuleList": falling_to_dict, "Tree": tree_to_dict}[
        _kind(model)](model)


def to_json(model, indent: int | None = 2) -> str:
    """JSON text; ``from_json`` rebuilds an identical model (same fields, same predictions)."""
    return json.dumps(to_dict(model), indent=indent)


def from_dict(d: dict):
    kind = d.get("model")
    if kind == "RuleList":
        return rule_list_from_dict(d)
    if kind == "FallingRuleList":
        return falling_from_dict(d)
    if kind == "Tree":
        return tree_from_dict(d)
    raise ValueError(f"unknown model kind {kind!r} in JSON (expected RuleList, FallingRuleList or Tree)")


def from_json(s: str):
    """The model a ``to_json`` text describes."""
    return from_dict(json.loads(s))


def to_text(model) -> str:
    """The model's plain-text rendering (what ``print(model)`` shows)."""
    _kind(model)
    return model.text() if hasattr(model, "text") else str(model)


def to_latex(model) -> str:
    """LaTeX ``algorithmic`` environment (needs ``\\usepackage{algorithm,algpseudocode}``)."""
    return {"RuleList": rule_list_to_latex, "FallingRuleList": falling_to_latex, "Tree": tree_to_latex}[
        _kind(model)](model)


def to_dot(model) -> str:
    """Graphviz DOT source of a tree; rule lists become a chain of decisions."""
    kind = _kind(model)
    if kind == "Tree":
        return model.to_dot()
    from .osdt.model import _esc

    if kind == "RuleList":
        conds = [r.name for r in model.rules]
        outs = [f"predict {model.label_names[r.prediction]}" for r in model.rules]
        default = f"predict {model.label_names[model.default_prediction]}"
    else:
        probs = np.asarray(model.probabilities, dtype=float)
        conds = list(model.names)
        outs = [f"P(y=1) = {p:.4f}" for p in probs[:-1]]
        default = f"P(y=1) = {probs[-1]:.4f}"
    lines = ["digraph RuleList {", '  node [fontname="Helvetica"];']
    for k, (c, o) in enumerate(zip(conds, outs)):
        lines.append(f'  c{k} [shape=ellipse, label="{_esc(c)}"];')
        lines.append(f'  o{k} [shape=box, label="{_esc(o)}"];')
        lines.append(f'  c{k} -> o{k} [label="yes"];')
        nxt = f"c{k + 1}" if k + 1 < len(conds) else "default"
        lines.append(f'  c{k} -> {nxt} [label="no"];')
    lines.append(f'  default [shape=box, label="{_esc(default)}"];')
    lines.append("}")
    return "\n".join(lines)
