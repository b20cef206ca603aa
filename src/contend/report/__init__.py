"""Reports of a review run: report.json, report.md, report.sarif and terminal text.

Every output is a pure fold of the run state: `build_report` turns a RunState and its
Outcome into a `Report` (the report.json contract), and each renderer turns a Report into
text. Nothing here writes files or reads the clock; the caller owns I/O.
"""

from contend.report.build import build_report
from contend.report.markdown import render_markdown
from contend.report.model import SCHEMA_ID, Dispute, Report
from contend.report.sarif import render_sarif, sarif_log
from contend.report.text import render_text

__all__ = [
    "SCHEMA_ID",
    "Dispute",
    "Report",
    "build_report",
    "render_markdown",
    "render_sarif",
    "render_text",
    "sarif_log",
]
