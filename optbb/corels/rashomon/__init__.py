"""The Rashomon set of rule lists: every rule list whose objective is within a bound, counted exactly, listed in
objective order and summarised without listing (:class:`~optbb.common.rashomon.RashomonSet`).

A *rule list* here is ``d_1, ..., d_k, default`` over distinct antecedents (columns of the data), ``k <= max_length``,
in which every rule captures at least one sample no earlier rule captured; each rule and the default predict the
majority class of what they capture (ties: the larger class index), as :func:`~optbb.corels.model.build_rule_list`
does.  Its objective is ``misclassified amount / total amount + regularization * k`` (amounts: sample counts, or
sums of ``sample_weight``).  Two lists are the same when they have the same antecedents in the same order.

The search (:mod:`optbb.corels.rashomon.kernel`) expands the prefixes least lower bound first and keeps the prefix
tree pruned at the bound: a node per prefix it queued, and per expanded node the number of its member children of
each achievable ``(errors, rules)`` pair (an *entry*).  The set's levels are those pairs, ordered by objective, then
rules, then errors; inside a level the models come in the order of the entries (the order in which the search
expanded their nodes: by lower bound, ties by creation), and inside an entry by the last rule's antecedent.  A
model is found by bisection over the entries' counts and one evaluation of its node's children, so the ``i``-th
model costs one node expansion, however large the set.  A search stopped by a limit has evaluated every list whose
objective is below the least lower bound still queued: the set is complete below it (``complete_below``).

Errors are keyed exactly: integers without weights; with weights, the float64 sums of weights of the misclassified
samples, each class summed in sample order and the list's errors rule by rule, default last (the sums
``build_rule_list`` makes), so two lists share a level when their float errors are equal (two lists whose weighted
errors differ only in the last bits, summed from different samples, are two levels with nearly equal objectives).

The optimum over lists of at most ``max_length`` rules comes from a branch and bound of the same search, least lower
bound first (CORELS' :func:`~optbb.corels.solve` has no length cap).  It expands the prefixes whose lower bound is
below its incumbent, which the enumeration within a bound above the optimum expands too (but for those the first,
weaker incumbents let through), so it costs less than the enumeration that follows: a third of the prefixes
evaluated on COMPAS with at most four rules.

Modules: :mod:`~optbb.corels.rashomon.build` (``rashomon_set``, ``build_set``), :mod:`~optbb.corels.rashomon.engine`
(the problem and the search as a driver engine), :mod:`~optbb.corels.rashomon.levels` (the set's backend) and
:mod:`~optbb.corels.rashomon.kernel` (the compiled kernels).
"""
from .build import FAMILY, build_set, rashomon_set
from .engine import Problem, Search
from .levels import RuleListLevels

__all__ = ["rashomon_set", "build_set", "RuleListLevels", "Problem", "Search", "FAMILY"]
