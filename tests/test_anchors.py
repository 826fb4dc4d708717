"""The benchmark plumbing in benchmarks/anchors.py: output parsers, and one real run when the anchors are there."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "anchors", Path(__file__).resolve().parents[1] / "benchmarks" / "anchors.py")
anchors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anchors)

CORELS_STDOUT = """\
**Not using GMP library**
writing logs to: ../logs/for--curious_lb-with_prefix_perm_map-minor-removed=none.txt

LEARNING RULE LIST via LOWER BOUND Prefix Map
min(objective): 0.46268 -> 0.45562, length: 1, cache size: 5
Exited because queue empty
Deleting queue elements and corresponding nodes in the cache,since they may not be reachable by the tree's destructor

minimum objective: 0.3666859717
minimum lower bound in queue: 1.0000000000

final num_nodes: 3
final num_evaluated: 123
final min_objective: 0.36669
final accuracy: 0.65331
final total time: 0.710337

OPTIMAL RULE LIST
if ({priors:>3}) then ({recidivate-within-two-years:Yes})
else if ({sex:Male,age:18-20}) then ({recidivate-within-two-years:Yes})
else ({recidivate-within-two-years:No})

writing optimal rule list to: ../logs/x-opt.txt
"""


def test_parse_corels_output_reads_the_certified_run():
    parsed = anchors.parse_corels_output(CORELS_STDOUT)
    assert parsed["status"] == "certified"
    assert parsed["objective"] == 0.3666859717
    assert parsed["final_min_objective"] == 0.36669
    assert parsed["num_nodes"] == 3 and parsed["num_evaluated"] == 123
    assert parsed["accuracy"] == 0.65331 and parsed["total_time"] == 0.710337
    assert parsed["rule_list_length"] == 2
    assert parsed["rule_list"].splitlines()[-1] == "else ({recidivate-within-two-years:No})"


def test_parse_corels_output_reports_the_node_cap():
    text = CORELS_STDOUT.replace("Exited because queue empty", "Exited because max number of nodes in the tree "
                                 "was reached")
    assert anchors.parse_corels_output(text)["status"] == "node_cap"


def test_parse_corels_log_takes_counters_from_the_last_row(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("total_time,lower_bound_num,tree_insertion_num,evaluate_children_num,tree_min_objective,"
                   "tree_num_nodes,queue_size,prefix_lengths\n"
                   "0.1,10,5,1,0.4,5,4,0:1;1:4;\n"
                   "0.2,30,9,3,0.37,3,0,\n")
    parsed = anchors._parse_corels_log(log)
    assert parsed["lower_bound_evaluations"] == 30
    assert parsed["queue_insertions"] == 9
    assert parsed["nodes_expanded"] == 3
    assert parsed["best_objective_logged"] == 0.37
    assert parsed["max_queue_size_logged"] == 4 and parsed["max_num_nodes_logged"] == 5


def test_result_lines_parse_to_numbers():
    line = ("RESULT leaves=3 accuracy=0.655132 total_seconds=0.793 time_to_optimum=0.146 trees_evaluated=20646 "
            "trees_to_optimum=3601")
    assert anchors._key_values(line) == {"leaves": 3, "accuracy": 0.655132, "total_seconds": 0.793,
                                         "time_to_optimum": 0.146, "trees_evaluated": 20646,
                                         "trees_to_optimum": 3601}


def test_run_returns_the_exit_code_and_stops_at_the_timeout(tmp_path):
    returncode, stdout, _, wall, rss, timed_out = anchors._run(["sh", "-c", "echo hi; exit 3"], cwd=tmp_path)
    assert (returncode, stdout, timed_out) == (3, "hi\n", False) and rss > 0
    _, _, _, wall, _, timed_out = anchors._run(["sleep", "30"], cwd=tmp_path, timeout=0.5)
    assert timed_out and wall < 10


@pytest.mark.skipif(anchors.corels_binary(build=False) is None or anchors.corels_cv_fold(0) is None,
                    reason="the C++ CORELS is not built or ../shared is absent")
def test_run_corels_certifies_fold_0():
    result = anchors.run_corels(*anchors.corels_cv_fold(0), regularization=0.01, timeout=300)
    assert result["certified"] and result["minor_used"]
    assert result["objective"] == pytest.approx(0.3666859717, abs=1e-9)
    assert result["rule_list_length"] == 2 and result["peak_rss_bytes"] > 0
