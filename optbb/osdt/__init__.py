"""OSDT: certifiably optimal sparse decision trees (Hu, Rudin & Seltzer, NeurIPS 2019) by branch and bound."""
from ..preprocessing.cuts import cut_dataset
from .dispatch import SEARCHES, solve
from .estimator import OSDTClassifier
from .leaf_set import ABLATIONS, POLICIES
from .model import Tree
from .rashomon_set import rashomon_set

__all__ = ["OSDTClassifier", "Tree", "solve", "cut_dataset", "rashomon_set", "ABLATIONS", "POLICIES", "SEARCHES"]
