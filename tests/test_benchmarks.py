"""The performance suite stays runnable: a quick pass of its cheapest sections prints a
table with a figure in every row (the figures themselves are not judged here)."""

from __future__ import annotations

import re

import pytest

from tests.benchmarks import run


@pytest.mark.postgres
def test_the_benchmark_suite_prints_its_table(pg_required: None, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "table.md"
    assert run.main(["--quick", "--only", "floor", "engines", "--markdown", str(out)]) == 0
    table = out.read_text()
    rows = [line for line in table.splitlines() if line.startswith(("| floor", "| engines"))]
    assert len(rows) >= 7 + 3, table
    for row in rows:
        assert re.search(r"\d", row.split("|")[3]), f"a row without a figure: {row}"
    assert "PostgreSQL: raw INSERT" in table and "library save of one event" in table
    assert "Run in" in table and "cores" in table
