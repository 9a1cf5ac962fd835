"""A session as one static HTML page to send to a colleague (`workbench export`): the transcript folded a turn at a
time, code highlighted, every eval, the speedup plot and the settings; or two sessions side by side.

The page is read from the log alone (`Session.open`, the one fold) and written whole or not at all."""

from workbench.export.write import ExportError, export_html

__all__ = ["ExportError", "export_html"]
