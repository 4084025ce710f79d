"""MkDocs hook: write the tables of rules options and table columns from their declarations.

A page holding the marker ``<!-- rules-options -->`` gets, in its place, one row per option: the
base game's (``projectl_sim.rules.BASE_OPTIONS``), then each registered variant's and expansion's
(their classes' ``options``, ``projectl_sim.options.Option``): its name, whose it is, the values
it takes, its default and its help. Nothing is written by hand, so the table cannot drift from
the classes; a user's own expansion or variant declares its options the same way.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- rules-options -->"
COLUMNS_MARKER = "<!-- declared-columns -->"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _shown(value: Any) -> str:
    return f"`{str(value).lower() if isinstance(value, bool) else value}`"


def rules_options_markdown() -> str:
    """Return the options table in Markdown."""
    import projectl_sim  # noqa: F401  (registers the shipped expansions and variants)
    from projectl_sim.registry import option_owner
    from projectl_sim.rules import every_option

    lines = [
        "| option | of | values | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for name, option in every_option().items():
        owner = option_owner(name)
        of = "base game" if owner is None else f"{owner[1]} ({owner[0]})"
        if option.kind is str:
            values = " / ".join(f"`{v}`" for v in option.choices)
        else:
            values = _cell(option.values)
        recorded = "" if option.recorded == "always" else " (in records when changed)"
        lines.append(
            f"| `{name}` | {of} | {values} | {_shown(option.default)} | "
            f"{_cell(option.help)}{recorded} |"
        )
    return "\n".join(lines)


def declared_columns_markdown() -> str:
    """Return the table of the columns the registered expansions and variants declare."""
    import projectl_sim  # noqa: F401  (registers the shipped expansions and variants)
    from projectl_sim.registry import declared_columns

    lines = ["| column | table | type | of | meaning |", "|---|---|---|---|---|"]
    for table in ("seats", "games"):
        for name, (column, owner) in declared_columns(table).items():
            lines.append(f"| `{name}` | {table} | {column.type} | {owner} | {_cell(column.help)} |")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Put the generated tables where a page asks for them."""
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, rules_options_markdown())
    if COLUMNS_MARKER in markdown:
        markdown = markdown.replace(COLUMNS_MARKER, declared_columns_markdown())
    return markdown
