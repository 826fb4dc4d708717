"""How a set of rule lists and a set read back from its JSON read their models (the family's part of
:mod:`optbb.common.rashomon_json`); imported with :mod:`optbb.corels`, so that ``RashomonSet.from_json`` reads sets of
rule lists once ``optbb.corels`` is imported, without the search's modules."""
from __future__ import annotations

import numpy as np

from ..common.formats import as_labels
from ..common.rashomon_json import read_names, register_family
from .model import RuleList

FAMILY = "rule lists"


class RuleListReading:
    """How the members of a set of rule lists predict and name their antecedents: what a set and a set read back
    from JSON share."""

    @staticmethod
    def predict(model: RuleList, X) -> np.ndarray:
        return model.predict(X)

    @staticmethod
    def features_of(model: RuleList) -> set[int]:
        return {int(r.antecedent) for r in model.rules}

    @staticmethod
    def key(model: RuleList) -> tuple:
        """Its antecedents and the classes its rules and default predict."""
        if not isinstance(model, RuleList):
            raise TypeError(f"a set of rule lists holds RuleList models, got {type(model).__name__}")
        return tuple(int(r.antecedent) for r in model.rules), tuple(model.rule_classes().tolist())

    @staticmethod
    def json_fields() -> dict:
        return {}


class ListedRuleLists(RuleListReading):
    """A set of rule lists read back from JSON (:class:`~optbb.common.rashomon_json.ListedBackend`): its antecedent
    names and classes, and its lists read with :meth:`RuleList.from_dict`."""

    def __init__(self, d: dict):
        self.feature_names = read_names(d)
        self.classes = as_labels(d.get("classes"), "classes")
        self.prepare = None

    @staticmethod
    def read_model(d: dict) -> RuleList:
        return RuleList.from_dict(d)


register_family(FAMILY, ListedRuleLists)
