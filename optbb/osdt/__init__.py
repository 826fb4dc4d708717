"""OSDT: certifiably optimal sparse decision trees (Hu, Rudin & Seltzer, NeurIPS 2019) by branch and bound."""
from .numeric.cuts import cut_dataset
from .solve import SEARCHES, solve
from .estimator import OSDTClassifier
from .leaf_set.engine import ABLATIONS, POLICIES
from .model import Tree
from .rashomon.build import rashomon_set

__all__ = ["OSDTClassifier", "Tree", "solve", "cut_dataset", "rashomon_set", "ABLATIONS", "POLICIES", "SEARCHES"]
