"""CORELS: certifiably optimal rule lists (Angelino, Larus-Stone, Alabi, Seltzer & Rudin, JMLR 2018)."""
from . import listed  # noqa: F401  (sets of rule lists read back from JSON)
from .model import Rule, RuleList
from .search import ABLATIONS, POLICIES, solve

__all__ = ["solve", "rashomon_set", "RuleList", "Rule", "POLICIES", "ABLATIONS", "CorelsClassifier"]


def __getattr__(name):
    if name == "CorelsClassifier":
        from .estimator import CorelsClassifier

        return CorelsClassifier
    if name == "rashomon_set":
        from .rashomon import rashomon_set

        return rashomon_set
    raise AttributeError(name)
