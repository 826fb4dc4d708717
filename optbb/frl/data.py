"""bank-full for FRL: the loader lives in :mod:`optbb.datasets.bank`; these names stay importable from here."""
from ..datasets.bank import (ATTRIBUTE_ORDER, CATEGORICAL, discretize_bank, items_to_dataset, load_bank_full,
                             read_bank_items, read_items, read_labels)

__all__ = ["ATTRIBUTE_ORDER", "CATEGORICAL", "discretize_bank", "items_to_dataset", "load_bank_full",
           "read_bank_items", "read_items", "read_labels"]
