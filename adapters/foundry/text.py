"""Chat text both ways: Foundry's HTML content to plain text, and our plain text to HTML."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from html.parser import HTMLParser

from vttbridge.rules.citations import Cited

_BLOCK = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "tr",
        "section",
        "button",
    }
)
_SKIP = frozenset({"script", "style", "template"})
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_CODE = re.compile(r"`([^`\n]+)`")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def strip_html(content: str) -> str:
    """The text a reader sees: tags dropped (an inline roll keeps its total), entities
    decoded, block elements as line breaks, runs of spaces collapsed, ends trimmed."""
    if "<" not in content and "&" not in content:
        return content.strip()
    parser = _Text()
    parser.feed(content)
    parser.close()
    text = "".join(parser.parts)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


def to_html(text: str) -> str:
    """Our chat sentence as Foundry chat HTML: escaped, ``code`` spans kept, one paragraph per
    line."""
    paras = []
    for line in text.split("\n"):
        esc = html.escape(line, quote=False)
        paras.append("<p>" + _CODE.sub(r"<code>\1</code>", esc) + "</p>")
    return "".join(paras)


def link_cites(content: str, cites: Iterable[Cited]) -> str:
    """``content`` (from :func:`to_html`) with each rule's short citation a link to its section:
    ``(<a href="...docs/rules.md#movement">FoE, Movement</a>; option: diagonal_metric =
    alternating)``."""
    for c in cites:
        head = f"{c.source}, {c.rule}"
        short = c.short()
        tail = short[len(f"({head}, {c.page}") : -1]
        link = (
            f'(<a class="vttbridge-rule" href="{html.escape(c.url, quote=True)}" '
            f'target="_blank" rel="noopener noreferrer">{html.escape(head, quote=False)}</a>'
            f"{html.escape(tail, quote=False)})"
        )
        content = content.replace(html.escape(short, quote=False), link)
    return content
