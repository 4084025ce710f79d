"""MkDocs hook: a console block's copy button copies its commands only.

A block of a shell session (```` ```console ````) shows each command after a ``$ `` prompt, and
its output after it. Material's copy button copies a block's text, or the ``data-copy``
attribute of the block when it has one: this hook gives each block with prompts that attribute,
its commands without the prompt and without the output (a command continued on ``> `` lines, or
after a trailing backslash, stays whole). The page's CSS (``docs/stylesheets/extra.css``) wraps
those commands and keeps every block's text clear of the button.
"""

from __future__ import annotations

import html
import re
from typing import Any

# a code block as pymdownx.highlight writes it: <div class="highlight"><pre>...<code>...</code>
_CODE = re.compile(
    r'(<div class="[^"]*\bhighlight\b[^"]*"><pre[^>]*>(?:<span></span>)?)<code>(.*?)</code>', re.S
)
_PROMPT = re.compile(r'<span class="gp">(.*?)</span>', re.S)
_TAG = re.compile(r"<[^>]+>")
MARK = "\x00"


def commands(code_html: str) -> list[str] | None:
    """Return the commands of a console block's highlighted HTML, or None if it has no prompt."""
    if 'class="gp"' not in code_html:
        return None
    text = html.unescape(_TAG.sub("", _PROMPT.sub(MARK, code_html)))
    out: list[str] = []
    going_on = False  # the last command ended with a backslash: this line continues it
    for line in text.split("\n"):
        if line.startswith(MARK) or going_on:
            out.append(line.removeprefix(MARK))
            going_on = line.rstrip().endswith("\\")
    return out


def on_page_content(content: str, **kwargs: Any) -> str:
    """Give each console block the commands its copy button copies (``data-copy``)."""

    def with_commands(match: re.Match[str]) -> str:
        found = commands(match.group(2))
        if found is None:
            return match.group(0)
        copy = html.escape("\n".join(found), quote=True)
        return f'{match.group(1)}<code data-copy="{copy}">{match.group(2)}</code>'

    return _CODE.sub(with_commands, content)
