"""Falling rule lists (FRL) and softly falling rule lists (softFRL): Chen & Rudin, AISTATS 2018."""
from .estimator import FRLClassifier, SoftFRLClassifier
from .model import FallingRuleList
from .objective import frl_objective, make_falling, soft_objective
from .search import solve

__all__ = ["solve", "FRLClassifier", "SoftFRLClassifier", "FallingRuleList", "frl_objective", "soft_objective",
           "make_falling"]
