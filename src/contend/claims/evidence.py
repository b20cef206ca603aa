"""Local evidence as text: pages, regions, and the visible reasons a file cannot be read.

Reading (`read_evidence`) is the I/O edge; locating a page and region (`locate`) is pure.

- A text file is UTF-8; its pages are separated by form feeds (a file without one is one
  page). Over 10 MB, not UTF-8, or unreadable: an `Unreadable` with the reason, never text.
- A PDF (by its `%PDF-` header) is read page by page through pypdf, the `pdf` extra,
  imported only when a PDF is met; without it the reason names the extra to install.
- A region is a third of the page's lines (`top`, `middle`, `bottom`) or the whole page
  (`n/a`). Thirds have a small margin either side (two lines, or 5% of the page), because a
  person naming "middle" for a line at the edge of a third is not wrong; lines found in the
  margin say so.

`Unreadable.kind` tells the precheck whose problem it is: `inaccessible` (the file is not
there, or it is refused) removes evidence the caller gave wrongly; `unreadable` (too big,
not UTF-8, a PDF that will not parse, the PDF extra missing) is contend unable to read
evidence that may well be sound, so it must never turn into a reject on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

MAX_EVIDENCE_BYTES = 10 * 1024 * 1024
PDF_EXTRA = "pip install 'contend[pdf]'"

UnreadableKind = Literal["inaccessible", "unreadable"]


@dataclass(frozen=True, slots=True)
class Unreadable:
    kind: UnreadableKind
    reason: str


@dataclass(frozen=True, slots=True)
class EvidenceText:
    """The pages of one evidence file, and where each page starts in the whole file."""

    pages: tuple[str, ...]
    is_pdf: bool = False

    def page_start_line(self, page: int) -> int:
        """1-based file line of the first line of `page` (text files; PDFs count per page)."""
        if self.is_pdf:
            return 1
        return 1 + sum(len(p.split("\n")) - 1 for p in self.pages[: page - 1])


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    page: int
    line: int  # 1-based line within the page
    file_line: int | None  # 1-based line of the whole file (text files)
    text: str
    in_margin: bool  # just outside the named region


@dataclass(frozen=True, slots=True)
class RegionText:
    page: int | None  # None: every page (page n/a)
    region: str
    lines: tuple[EvidenceLine, ...]

    def describe(self) -> str:
        page = "all pages" if self.page is None else f"page {self.page}"
        region = "whole page" if self.region == "n/a" else f"{self.region} third"
        return f"{page}, {region}"


def split_pages(text: str) -> tuple[str, ...]:
    return tuple(text.split("\f"))


def read_evidence(path: Path) -> EvidenceText | Unreadable:
    """The text of a local evidence file, or why it cannot be had."""
    try:
        if not path.is_file():
            what = "does not exist" if not path.exists() else "is not a regular file"
            return Unreadable("inaccessible", f"{path} {what}")
        size = path.stat().st_size
        if size > MAX_EVIDENCE_BYTES:
            return Unreadable(
                "unreadable", f"{path} is {size} bytes, over the 10 MB evidence limit"
            )
        raw = path.read_bytes()
    except OSError as exc:
        return Unreadable("inaccessible", f"cannot read {path}: {exc.strerror or exc}")
    if raw.startswith(b"%PDF-"):
        return _read_pdf(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Unreadable(
            "unreadable", f"{path} is not UTF-8 text (byte {exc.start}); convert it to UTF-8"
        )
    return EvidenceText(split_pages(text.replace("\r\n", "\n")))


def _read_pdf(path: Path) -> EvidenceText | Unreadable:
    try:
        import pypdf
    except ImportError:
        return Unreadable("unreadable", f"{path} is a PDF: reading it needs {PDF_EXTRA}")
    try:
        reader = pypdf.PdfReader(path, strict=False)
        pages = tuple((page.extract_text() or "") for page in reader.pages)
    # A damaged PDF can fail anywhere inside the parser; the failure becomes a listed skip
    # with its message, never text and never silence.
    except Exception as exc:
        return Unreadable("unreadable", f"{path} is a PDF that will not parse: {exc}")
    if not any(p.strip() for p in pages):
        return Unreadable("unreadable", f"{path} is a PDF with no extractable text")
    return EvidenceText(pages, is_pdf=True)


def region_bounds(count: int, region: str) -> tuple[int, int]:
    """[start, end) line indexes of a third of `count` lines (the whole for n/a)."""
    if region == "n/a" or count == 0:
        return 0, count
    cuts = [0, -(-count // 3), -(-2 * count // 3), count]
    index = {"top": 0, "middle": 1, "bottom": 2}[region]
    return cuts[index], cuts[index + 1]


def locate(
    evidence: EvidenceText, page: int | str | None, region: str | None
) -> RegionText | Unreadable:
    """The lines of `page` and `region` (None or n/a: the whole page / every page)."""
    region_name = region or "n/a"
    if page is None or page == "n/a":
        selected = list(range(1, len(evidence.pages) + 1))
        page_number: int | None = None
    else:
        page_number = int(page)
        if page_number > len(evidence.pages):
            return Unreadable(
                "inaccessible",
                f"page {page_number} cited, but the evidence has {len(evidence.pages)} page(s)",
            )
        selected = [page_number]
    lines: list[EvidenceLine] = []
    for number in selected:
        text_lines = evidence.pages[number - 1].split("\n")
        start, end = region_bounds(len(text_lines), region_name)
        margin = 0 if region_name == "n/a" else max(2, len(text_lines) // 20)
        first_line = evidence.page_start_line(number)
        for index in range(max(0, start - margin), min(len(text_lines), end + margin)):
            lines.append(
                EvidenceLine(
                    page=number,
                    line=index + 1,
                    file_line=None if evidence.is_pdf else first_line + index,
                    text=text_lines[index],
                    in_margin=not start <= index < end,
                )
            )
    return RegionText(page_number, region_name, tuple(lines))
