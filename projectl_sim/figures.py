"""The package's matplotlib figure: outside pyplot, and shown by Jupyter without magic.

``ChartFigure`` is a ``matplotlib.figure.Figure`` whose ``_repr_png_`` is its picture, and whose
Axes (``ChartAxes``) show their figure the same way, so a notebook cell ending in a chart (an
Axes or a Figure the package returns) draws it with no ``%matplotlib inline`` and no pyplot: no
global figure list fills up when a report draws dozens of charts in a script. Every chart of
the package (``analysis.plots``, the atlas, the puzzle check, ``tune``'s chart) is drawn on one.
"""

from __future__ import annotations

import io

from matplotlib.axes import Axes
from matplotlib.figure import Figure


class ChartFigure(Figure):
    """A figure that shows itself in Jupyter: ``_repr_png_`` is its picture, so a cell ending in
    a chart draws it with no ``%matplotlib`` magic and no pyplot (nothing global is touched).
    Its Axes are ``ChartAxes``, which show their figure the same way."""

    def add_subplot(self, *args: object, **kwargs: object) -> Axes:
        if "projection" not in kwargs and "polar" not in kwargs:
            kwargs.setdefault("axes_class", ChartAxes)
        return super().add_subplot(*args, **kwargs)

    def _repr_png_(self) -> bytes:
        return png_bytes(self)


class ChartAxes(Axes):
    """An Axes that Jupyter shows as its figure's picture (see ``ChartFigure``)."""

    def _repr_png_(self) -> bytes:
        return png_bytes(self.get_figure(root=True))


def png_bytes(drawing: Axes | Figure, dpi: int = 100) -> bytes:
    """Return the PNG picture of a figure (or an Axes' figure), drawn on the Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = drawing if isinstance(drawing, Figure) else drawing.get_figure(root=True)
    if not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, dpi=dpi, format="png")
    return buffer.getvalue()


def new_figure(width: float = 6.4, height: float = 4.0) -> ChartFigure:
    """Return a new figure in constrained layout (outside pyplot; Jupyter shows it)."""
    return ChartFigure(figsize=(width, height), layout="constrained")
