"""Shared kernel layer: bitsets, data, mining, equivalent points, bounds, queues, hash tables, results, limits,
traces, Rashomon sets."""
from .data import BinaryDataset, from_arrays, from_dataframe, read_binary_csv, read_corels, read_osdt_csv
from .importance import ImportanceDistribution, rashomon_importance_distribution
from .limits import Limits
from .rashomon import RashomonSet
from .result import SearchResult, Status

__all__ = ["BinaryDataset", "from_arrays", "from_dataframe", "read_binary_csv", "read_corels", "read_osdt_csv",
           "Limits", "RashomonSet", "SearchResult", "Status", "ImportanceDistribution",
           "rashomon_importance_distribution"]
