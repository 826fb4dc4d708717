"""CORELS text files (``.out``, ``.label``, ``.minor``): malformed files are refused with the line and the problem,
by the reader and by the command line; harmless variants are accepted."""
from __future__ import annotations

import numpy as np
import pytest

from optbb.common.data import read_corels

from .support import _cli


def _write_corels(tmp_path, out_lines, label_lines, minor_lines=None):
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    out.write_text("\n".join(out_lines) + "\n")
    label.write_text("\n".join(label_lines) + "\n")
    minor = None
    if minor_lines is not None:
        minor = tmp_path / "d.minor"
        minor.write_text("\n".join(minor_lines) + "\n")
    return out, label, minor


GOOD_OUT = ["{a} 1 0 1 0 1 1", "{b} 0 0 1 1 0 1", "{c} 1 1 0 0 0 0"]
GOOD_LABEL = ["{label=0} 1 1 0 1 0 0", "{label=1} 0 0 1 0 1 1"]

MALFORMED = {
    "ragged_line": (["{a} 1 0 1 0 1 1", "{b} 0 0 1 1 0"], GOOD_LABEL, None, r"line 2.*ragged"),
    "non_binary_token": (["{a} 1 0 1 0 1 1", "{b} 0 0 2 1 0 1"], GOOD_LABEL, None, r"line 2.*'2'"),
    "word_token": (["{a} 1 0 1 0 yes 1"], GOOD_LABEL, None, r"line 1.*0/1"),
    "label_count": (GOOD_OUT, ["{label=0} 1 1 0 1 0", "{label=1} 0 0 1 0 1"], None, r"5 values.*6 samples"),
    "one_label_line": (GOOD_OUT, ["{label=1} 0 0 1 0 1 1"], None, r"expected 2 label lines"),
    "labels_not_complementary": (GOOD_OUT, ["{label=0} 1 1 0 1 0 0", "{label=1} 1 0 1 0 1 1"], None,
                                 r"complementary"),
    "label_token": (GOOD_OUT, ["{label=0} 1 1 0 1 0 0", "{label=1} 0 0 1 0 1 x"], None, r"line 2"),
    "empty_out": ([""], GOOD_LABEL, None, r"no antecedent"),
    "duplicate_names": (["{a} 1 0 1 0 1 1", "{a} 0 0 1 1 0 1"], GOOD_LABEL, None, r"duplicate"),
    "unterminated_name": (["{a 1 0 1 0 1 1"], GOOD_LABEL, None, r"unterminated"),
    "nameless_line": (["1 0 1 0 1 1"], GOOD_LABEL, None, r"line 1.*name"),
    "minor_count": (GOOD_OUT, GOOD_LABEL, ["{m} 0 0 0 0 0"], r"5 values.*6 samples"),
    "minor_two_lines": (GOOD_OUT, GOOD_LABEL, ["{m} 0 0 0 0 0 0", "{m2} 0 0 0 0 0 0"], r"expected 1 line"),
    "minor_disagrees": (GOOD_OUT, GOOD_LABEL, ["{m} 1 1 1 1 1 1"], r"minor.*disagrees"),
    "minor_nameless": (GOOD_OUT, GOOD_LABEL, ["0 0 0 0 0 0"], r"line 1.*name"),
    "single_class": (GOOD_OUT, ["{label=0} 1 1 1 1 1 1", "{label=1} 0 0 0 0 0 0"], None, r"single class"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_corels_files(tmp_path, case):
    out_lines, label_lines, minor_lines, match = MALFORMED[case]
    out, label, minor = _write_corels(tmp_path, out_lines, label_lines, minor_lines)
    with pytest.raises(ValueError, match=match):
        read_corels(out, label, minor)
    # the command line reports the same problem with exit code 2 (it picks up d.minor beside d.out)
    code, _, err = _cli(["corels", str(out)])
    assert code == 2 and "error" in err


def test_well_formed_corels_files_variants(tmp_path):
    """CRLF, trailing spaces, no final newline and a consistent .minor are accepted."""
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    out.write_bytes(("\r\n".join(s + "  " for s in GOOD_OUT)).encode())
    label.write_bytes(("\r\n".join(GOOD_LABEL)).encode())
    data = read_corels(out, label)
    assert data.n_samples == 6 and data.feature_names == ["a", "b", "c"]
    minor = tmp_path / "d.minor"
    z = np.zeros(6, dtype=np.uint8)
    minor.write_text("{group_minority} " + " ".join(map(str, z)))
    assert read_corels(out, label, minor).n_samples == 6


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    """Editors on Windows save UTF-8 with a byte-order mark; it must not become part of the first rule's name."""
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    out.write_bytes(b"\xef\xbb\xbf" + "\n".join(GOOD_OUT).encode())
    label.write_bytes(b"\xef\xbb\xbf" + "\n".join(GOOD_LABEL).encode())
    data = read_corels(out, label)
    assert data.feature_names == ["a", "b", "c"] and data.label_names == ("label=0", "label=1")
