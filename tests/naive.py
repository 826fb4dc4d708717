"""Slow, obviously correct twins of every solver, for property tests (one module per solver, re-exported here)."""
from naive_corels import corels_brute_force, rule_list_objective  # noqa: F401

try:
    from naive_osdt import *  # noqa: F401,F403
except ImportError:  # the OSDT twin lands with the OSDT solver
    pass
try:
    from naive_frl import *  # noqa: F401,F403
except ImportError:  # the FRL twin lands with the FRL solver
    pass
