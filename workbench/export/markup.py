"""The page's small pieces of HTML: escaped text, highlighted code, folds and tables.

Everything a session holds is untrusted (the model's words, tool output, code, even the task's and session's names):
it reaches the page only through `text` (escaped, quotes included) or through Pygments, whose formatter escapes
what it highlights. No other function here takes text from a session.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import BashLexer, DiffLexer, JsonLexer, MarkdownLexer, PythonLexer, TextLexer

HIGHLIGHT_CLASS = "hl"


class Html(str):
    """Markup made here (already escaped): what the page's builders join. Plain `str` is text, to be escaped."""


def text(value: object) -> Html:
    """Untrusted text as HTML that shows it literally."""
    return Html(html.escape(str(value), quote=True))


def tag(name: str, *children: str, cls: str | None = None, **attrs: str) -> Html:
    """An element; children that are not already `Html` are escaped, attribute values always are."""
    attributes = "".join(f' {key.rstrip("_")}="{html.escape(value, quote=True)}"' for key, value in attrs.items())
    if cls:
        attributes += f' class="{html.escape(cls, quote=True)}"'
    body = "".join(c if isinstance(c, Html) else text(c) for c in children)
    return Html(f"<{name}{attributes}>{body}</{name}>")


def join(parts: Iterable[str]) -> Html:
    return Html("".join(p if isinstance(p, Html) else text(p) for p in parts))


def fold(summary: str, *body: str, open_: bool = False, cls: str | None = None) -> Html:
    """A `<details>` fold: the summary line always shown, the body on a click (no script needed)."""
    opened = " open" if open_ else ""
    klass = f' class="{html.escape(cls, quote=True)}"' if cls else ""
    return Html(f"<details{klass}{opened}>{tag('summary', summary)}{join(body)}</details>")


def table(header: list[str], rows: list[list[str]], cls: str | None = None) -> Html:
    head = tag("tr", *(tag("th", h) for h in header))
    return tag("table", tag("thead", head), tag("tbody", *(tag("tr", *(tag("td", c) for c in row)) for row in rows)),
               cls=cls)  # fmt: skip


def pre(value: str, cls: str | None = None) -> Html:
    return tag("pre", value, cls=cls)


_LEXERS: dict[str, type[Lexer]] = {"python": PythonLexer, "diff": DiffLexer, "bash": BashLexer, "json": JsonLexer,
                                   "markdown": MarkdownLexer}  # fmt: skip
_BY_SUFFIX = {".py": "python", ".md": "markdown", ".sh": "bash", ".json": "json", ".diff": "diff"}


def code(source: str, language: str = "python") -> Html:
    """Source highlighted by Pygments (which escapes it) with the page's classes; plain text for another language."""
    lexer = _LEXERS.get(language, TextLexer)()
    return Html(highlight(source, lexer, HtmlFormatter(cssclass=HIGHLIGHT_CLASS)))


def code_for_path(path: str, source: str) -> Html:
    """A file's content, highlighted as its extension says."""
    suffix = path[path.rfind(".") :].lower() if "." in path else ""
    return code(source, _BY_SUFFIX.get(suffix, "text"))


def highlight_css() -> str:
    """The colours of highlighted code, inline in the page's style sheet."""
    return str(HtmlFormatter(style="default").get_style_defs(f".{HIGHLIGHT_CLASS}"))
