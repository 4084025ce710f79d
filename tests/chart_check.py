"""Find the defects of a rendered chart from matplotlib's own extents: text over text, text off
the figure, text an axes cuts or data strikes through, markers an axes edge cuts.

``defects(drawing)`` draws the figure on the Agg canvas at the report's resolution and returns
one line per defect (empty: the chart is clean), so a failing test names what is wrong:

- text over text: two drawn texts (titles, tick labels, labels, legend entries, annotations)
  whose boxes overlap by more than ``SLACK`` pixels each way;
- text off the figure: a text box that leaves the canvas;
- text cut by an axes: a text placed in an axes (``ax.text``, ``annotate``) that crosses the
  axes' frame, half in and half out;
- text struck through: a line of the same axes (an error bar, a connecting line) that runs
  through a text placed in it;
- markers cut: a marker drawn inside an axes whose disc crosses the axes' edge, clipped there;
- a legend on the data: a legend box over the plotting area of an axes.

Only drawn things count: hidden artists, empty strings and tick labels outside the view are
left out.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

DPI = 100  # the report's
SLACK = 1.0  # pixels: boxes touching are not overlapping


def figure_of(drawing: Axes | Figure) -> Figure:
    return drawing if isinstance(drawing, Figure) else drawing.get_figure(root=True)


def render(drawing: Axes | Figure, dpi: int = DPI):
    """Draw the figure on an Agg canvas and return its renderer."""
    fig = figure_of(drawing)
    fig.set_dpi(dpi)
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _tick_labels(ax: Axes) -> list[Text]:
    labels = []
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        lo, hi = min(lo, hi), max(lo, hi)
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            at = tick.get_loc()
            if at is None or not (lo - 1e-9 <= at <= hi + 1e-9):
                continue
            for label in (tick.label1, tick.label2):
                if label.get_visible() and label.get_text().strip():
                    labels.append(label)
    return labels


def texts(fig: Figure) -> list[tuple[str, Text]]:
    """Return every drawn text of the figure, each with a name saying where it is."""
    found: list[tuple[str, Text]] = []
    seen: set[int] = set()

    def add(where: str, t: Text | None) -> None:
        if t is not None and t.get_visible() and t.get_text().strip() and id(t) not in seen:
            seen.add(id(t))
            found.append((where, t))

    add("suptitle", fig._suptitle)
    add("supxlabel", fig._supxlabel)
    add("supylabel", fig._supylabel)
    for t in fig.texts:
        add("figure text", t)
    legends = list(fig.legends)
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        name = f"axes {i}"
        for title in (ax.title, ax._left_title, ax._right_title):
            add(f"{name} title", title)
        if ax.axison:  # an axes drawn without its axis shows no tick or axis label
            add(f"{name} x label", ax.xaxis.label)
            add(f"{name} y label", ax.yaxis.label)
            if ax.xaxis.offsetText.get_text():
                add(f"{name} x offset", ax.xaxis.offsetText)
            for label in _tick_labels(ax):
                add(f"{name} tick label", label)
        for t in ax.texts:
            add(f"{name} text", t)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
    for legend in legends:
        if legend.get_visible():
            add("legend title", legend.get_title())
            for t in legend.get_texts():
                add("legend text", t)
    return found


def _box(t: Text, renderer) -> Bbox | None:
    box = t.get_window_extent(renderer)
    if not np.isfinite(box.get_points()).all() or box.width <= 0 or box.height <= 0:
        return None
    return box


def _overlap(a: Bbox, b: Bbox) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK


def _segments(ax: Axes) -> list[np.ndarray]:
    """Return the drawn line segments of an axes in pixels (lines, error bars)."""
    out = []
    for line in ax.get_lines():
        if not line.get_visible() or line.get_linestyle() in ("None", "none", "", " "):
            continue
        xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
        out.extend(np.stack([xy[:-1], xy[1:]], axis=1))
    for coll in ax.collections:
        if isinstance(coll, LineCollection) and coll.get_visible():
            transform = coll.get_transform()
            for seg in coll.get_segments():
                xy = transform.transform(np.asarray(seg, dtype=float))
                out.extend(np.stack([xy[:-1], xy[1:]], axis=1))
    return [s for s in out if np.isfinite(s).all()]


def _crosses(seg: np.ndarray, box: Bbox) -> bool:
    """Whether a segment runs through the inside of a box (shrunk by the slack)."""
    x0, y0, x1, y1 = box.x0 + SLACK, box.y0 + SLACK, box.x1 - SLACK, box.y1 - SLACK
    if x1 <= x0 or y1 <= y0:
        return False
    (ax_, ay), (bx, by) = seg
    # Liang-Barsky clipping: a non-empty part of the segment inside the box
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax_, by - ay
    for p, q in ((-dx, ax_ - x0), (dx, x1 - ax_), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if q < 0:
                return False
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return False
    return t1 - t0 > 1e-9


def _markers(ax: Axes, dpi: float) -> list[tuple[str, np.ndarray, float]]:
    """Return (what, centres in pixels, radius in pixels) of the clipped markers of an axes."""
    out = []
    for line in ax.get_lines():
        marker = line.get_marker()
        if (
            not line.get_visible()
            or marker in (None, "None", "none", "", " ")
            or not line.get_clip_on()
        ):
            continue
        xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
        out.append((f"marker {marker!r}", xy, line.get_markersize() / 2 * dpi / 72))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible() and coll.get_clip_on():
            offsets = coll.get_offsets()
            if len(offsets) == 0:
                continue
            xy = coll.get_offset_transform().transform(np.asarray(offsets, dtype=float))
            sizes = coll.get_sizes()
            radius = float(np.sqrt(sizes.max()) / 2 * dpi / 72) if len(sizes) else 3.0
            out.append(("scatter marker", xy, radius))
    return out


def defects(drawing: Axes | Figure, dpi: int = DPI) -> list[str]:
    """Return one line per defect of the rendered chart (see the module's docstring)."""
    fig = figure_of(drawing)
    renderer = render(fig, dpi)
    canvas = fig.bbox
    found: list[str] = []
    boxes = []
    for where, t in texts(fig):
        box = _box(t, renderer)
        if box is None:
            continue
        boxes.append((where, t, box))
        if (
            box.x0 < canvas.x0 - SLACK
            or box.y0 < canvas.y0 - SLACK
            or (box.x1 > canvas.x1 + SLACK or box.y1 > canvas.y1 + SLACK)
        ):
            found.append(f"{where} {t.get_text()!r} leaves the figure")
    if boxes:  # every pair at once: the overlap of their extents, each way
        e = np.array([[b.x0, b.y0, b.x1, b.y1] for _, _, b in boxes])
        wide = np.minimum(e[:, None, 2], e[None, :, 2]) - np.maximum(e[:, None, 0], e[None, :, 0])
        tall = np.minimum(e[:, None, 3], e[None, :, 3]) - np.maximum(e[:, None, 1], e[None, :, 1])
        for i, j in zip(*np.nonzero(np.triu((wide > SLACK) & (tall > SLACK), 1)), strict=True):
            (wa, ta, _), (wb, tb, _) = boxes[i], boxes[j]
            found.append(f"{wa} {ta.get_text()!r} overlaps {wb} {tb.get_text()!r}")
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or (not ax.axison and not ax.texts):
            continue
        frame = ax.bbox
        segments = _segments(ax)
        for t in ax.texts:
            if not t.get_visible() or not t.get_text().strip():
                continue
            box = _box(t, renderer)
            if box is None:
                continue
            inside = (
                box.x0 >= frame.x0 - SLACK
                and box.x1 <= frame.x1 + SLACK
                and box.y0 >= frame.y0 - SLACK
                and box.y1 <= frame.y1 + SLACK
            )
            if not inside and _overlap(box, frame) and not isinstance(t, Annotation):
                found.append(f"axes {i} text {t.get_text()!r} is cut by the axes' frame")
            if isinstance(t, Annotation) and not inside and _overlap(box, frame):
                found.append(f"axes {i} annotation {t.get_text()!r} is cut by the axes' frame")
            for seg in segments:
                if _crosses(seg, box):
                    found.append(f"axes {i} text {t.get_text()!r} is struck through by a line")
                    break
        for what, xy, radius in _markers(ax, dpi):
            centre_in = (
                (xy[:, 0] >= frame.x0 - 0.5)
                & (xy[:, 0] <= frame.x1 + 0.5)
                & (xy[:, 1] >= frame.y0 - 0.5)
                & (xy[:, 1] <= frame.y1 + 0.5)
            )
            cut = centre_in & (
                (xy[:, 0] - radius < frame.x0 - 0.5)
                | (xy[:, 0] + radius > frame.x1 + 0.5)
                | (xy[:, 1] - radius < frame.y0 - 0.5)
                | (xy[:, 1] + radius > frame.y1 + 0.5)
            )
            lost = ~centre_in & np.isfinite(xy).all(axis=1)
            if cut.any():
                found.append(f"axes {i}: {int(cut.sum())} {what} cut by the axes' edge")
            if lost.any():
                found.append(f"axes {i}: {int(lost.sum())} {what} outside the axes, not drawn")
    return found + _legends_on_data(fig, renderer)


def _legends_on_data(fig: Figure, renderer) -> list[str]:
    """Return a line per legend that covers the plotting area of an axes."""
    legends: list[Legend] = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    found = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for i, ax in enumerate(fig.axes):
            if ax.get_visible() and ax.axison and _overlap(box, ax.bbox):
                found.append(f"a legend covers axes {i}")
    return found
