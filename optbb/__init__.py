"""optbb: certifiably optimal interpretable models (CORELS, FRL/softFRL, OSDT) by branch-and-bound in Numba."""
__version__ = "0.1.0"

from . import _numba_cache

_numba_cache.configure()

from .common import BinaryDataset, RashomonSet, SearchResult, Status, rashomon_importance_distribution  # noqa: E402
from .preprocessing import Binarizer  # noqa: E402

__all__ = ["Binarizer", "BinaryDataset", "RashomonSet", "SearchResult", "Status", "rashomon_importance_distribution",
           "__version__"]
