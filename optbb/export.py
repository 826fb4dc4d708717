"""Export every optbb model as text, dict / JSON, LaTeX and Graphviz DOT, and read any model back from JSON.

Each model (:class:`optbb.corels.RuleList`, :class:`optbb.frl.FallingRuleList`, :class:`optbb.osdt.Tree`) owns its
forms; this module dispatches on the model, and on the ``"model"`` field of a JSON text
(``export.to_json(export.from_json(s)) == s``).  Every JSON predicts on raw features after the round trip.
"""
from __future__ import annotations

from .common.formats import loads
from .corels.model import RuleList
from .frl.model import FallingRuleList
from .osdt.model import Tree

__all__ = ["to_text", "to_dict", "to_json", "from_dict", "from_json", "to_latex", "to_dot"]

MODELS = {cls.__name__: cls for cls in (RuleList, FallingRuleList, Tree)}


def _check(model):
    """``model`` itself when it is an optbb model, else a TypeError."""
    if not isinstance(model, tuple(MODELS.values())):
        raise TypeError(f"no exporter for {type(model).__name__}; expected a RuleList, FallingRuleList or Tree")
    return model


def to_dict(model) -> dict:
    """The model's dict (the shape its JSON has)."""
    return _check(model).to_dict()


def to_json(model, indent: int | None = 2) -> str:
    """JSON text; ``from_json`` rebuilds an identical model (same fields, same predictions)."""
    return _check(model).to_json(indent)


def from_dict(d: dict):
    """The model a dict describes, chosen by its ``"model"`` field; a ValueError on anything malformed."""
    if not isinstance(d, dict):
        raise ValueError(f"a model must be read from a dict, got {type(d).__name__}")
    kind = d.get("model")
    if not isinstance(kind, str) or kind not in MODELS:
        raise ValueError(f"unknown model kind {kind!r} in JSON (expected one of {', '.join(MODELS)})")
    return MODELS[kind].from_dict(d)


def from_json(s: str):
    """The model a ``to_json`` text (or a model's own ``to_json``) describes."""
    return from_dict(loads(s, "model"))


def to_text(model) -> str:
    """The model's plain-text rendering (what ``print(model)`` shows)."""
    return _check(model).text()


def to_latex(model) -> str:
    """LaTeX ``algorithmic`` environment (needs ``\\usepackage{algorithm,algpseudocode}``)."""
    return _check(model).to_latex()


def to_dot(model) -> str:
    """Graphviz DOT source of a tree; rule lists become a chain of decisions."""
    return _check(model).to_dot()
