"""OSDT: certifiably optimal sparse decision trees (Hu, Rudin & Seltzer, NeurIPS 2019) by branch and bound."""
from .estimator import OSDTClassifier
from .model import Tree
from .search import ABLATIONS, POLICIES, SEARCHES, solve

__all__ = ["OSDTClassifier", "Tree", "solve", "ABLATIONS", "POLICIES", "SEARCHES"]
