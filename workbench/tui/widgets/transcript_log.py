"""TranscriptLog: a scrolling view of a session's events that renders only the blocks it shows.

A 350-turn session has about 2,000 events; rendering all of them (Markdown, highlighted code) takes
seconds. Each event becomes a block with an estimated height; a block is rendered, at the view's width,
only when it comes into view, and its strips are cached by event. Long tool results are folded; a
click on a block (or `f` for all of them) unfolds it.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from rich.cells import cell_len
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from workbench.session.events import UNLOGGED, Event
from workbench.tui.widgets.event_render import estimate_height, is_foldable, render_event, shows


@dataclass
class Block:
    event: Event
    height: int  # estimated until rendered
    rendered: bool = False


# Blocks are measured (rendered at the view's width, 1-4 ms each) as they come into view; until then their height is
# estimated. Up to this many are all measured at once (a new width, a new session): a few hundred ms at most, and the
# scrollbar of a short session does not depend on which entries happened to be seen at which width.
MEASURE_ALL_UP_TO = 64


class TranscriptLog(ScrollView, can_focus=True):
    BINDINGS = [Binding("f", "toggle_folds", "Fold/unfold results")]
    # entries wrap to the view's width: never a sideways scroll (nor its bar, which takes a line)
    DEFAULT_CSS = "TranscriptLog { overflow-x: hidden; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.blocks: list[Block] = []
        self.unfolded: set[int] = set()  # keys of the events unfolded one by one
        self.unfold_all = False
        self._cache: dict[tuple[int, int, bool], list[Strip]] = {}  # (event key, width, folded) -> strips
        self._offsets: list[int] = [0]  # the first line of each block, then the total
        self._follow = True
        self._wrapped_at = 0  # the width the entries were laid out at
        self._line_style, self._line_width = Style(), 0  # set by render_lines for its render_line calls
        self._line_cache: dict[int, list[Strip]] = {}  # block index -> strips, within one render_lines
        self.highlight = ""  # a search's words, marked wherever they show (any case)
        self.current: Event | None = None  # the search's current hit, marked brighter

    # -- content ------------------------------------------------------------------------------------
    def add(self, events_: list[Event]) -> None:
        follow = self._follow or self.is_vertical_scroll_end or self.max_scroll_y == 0
        for event in events_:
            if shows(event):
                self.blocks.append(Block(event, estimate_height(event, self.folded(event))))
        self._relayout(follow)

    def clear(self) -> None:
        self.blocks = []
        self._follow = True
        self._relayout(True)

    def folded(self, event: Event) -> bool:
        return is_foldable(event) and not self.unfold_all and _key(event) not in self.unfolded

    def toggle(self, event: Event) -> None:
        self.unfolded ^= {_key(event)}
        self._refold()

    def action_toggle_folds(self) -> None:
        self.unfold_all = not self.unfold_all
        self.unfolded.clear()
        self._refold()

    def _refold(self) -> None:
        for block in self.blocks:
            if is_foldable(block.event):
                block.rendered = False
                block.height = estimate_height(block.event, self.folded(block.event))
        self._relayout(self.is_vertical_scroll_end)

    # -- layout -------------------------------------------------------------------------------------
    @property
    def _width(self) -> int:
        return max(40, self.scrollable_content_region.width or self.size.width or 80)

    def _strips(self, block: Block) -> list[Strip]:
        folded = self.folded(block.event)
        key = (_key(block.event), self._width, folded)
        strips = self._cache.get(key)
        if strips is None:
            renderable: RenderableType | None = render_event(block.event, folded=folded)
            console = self.app.console
            options = console.options.update_width(self._width)
            lines = console.render_lines(renderable, options) if renderable is not None else []
            strips = [Strip(line) for line in lines]
            self._cache[key] = strips
        if not block.rendered or block.height != len(strips):
            block.rendered, block.height = True, len(strips)
        return strips

    def _relayout(self, follow: bool) -> None:
        if self.is_mounted and len(self.blocks) <= MEASURE_ALL_UP_TO:
            for block in self.blocks:  # a short transcript is measured whole: its scrollbar is exact
                self._strips(block)
        elif follow and self.is_mounted:  # the blocks at the end are measured so the end shows exactly
            seen = 0
            for block in reversed(self.blocks):
                seen += len(self._strips(block))
                if seen >= self.size.height:
                    break
        self._offsets = [0, *accumulate(block.height for block in self.blocks)]
        self._wrapped_at = self._width
        self.virtual_size = Size(self._width, self._offsets[-1])
        self._follow = follow
        if follow:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            # and again once laid out: content that has just outgrown the view has no scrollbar yet, and a widget
            # without one ignores the scroll (the view stayed at the top under load, following nothing)
            self.call_after_refresh(self._end_if_following)
        self.refresh()

    def _end_if_following(self) -> None:
        if self._follow:  # not if the person scrolled away meanwhile
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_resize(self, event: events.Resize) -> None:
        self._rewrap()

    def _rewrap(self) -> None:
        for block in self.blocks:
            block.rendered = False
        self._relayout(self._follow or self.is_vertical_scroll_end)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._follow = self.is_vertical_scroll_end

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._width != self._wrapped_at:
            # the vertical scrollbar came or went since the layout (no resize event for that): wrap again, after
            # this pass (a layout inside a render would be drawn by the next one anyway)
            self._wrapped_at = self._width
            self.call_after_refresh(self._rewrap)
        # measure the blocks in view first: their real heights can move the ones below
        top, bottom = self.scroll_offset.y + crop.y, self.scroll_offset.y + crop.bottom
        changed = False
        first = max(0, bisect_right(self._offsets, top) - 1)
        index = first
        while index < len(self.blocks) and self._offsets[index] < bottom:
            block = self.blocks[index]
            if not block.rendered:
                before = block.height
                self._strips(block)
                changed |= block.height != before
                self._offsets = [0, *accumulate(b.height for b in self.blocks)] if changed else self._offsets
            index += 1
        if changed:
            self.virtual_size = Size(self._width, self._offsets[-1])
            if self._follow:
                self.call_after_refresh(self._end_if_following)
        # the same for every line of this pass, and costly to look up per line (the style walks the DOM)
        self._line_style, self._line_width = self.rich_style, self.scrollable_content_region.width
        self._line_cache = {}
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        line = self.scroll_offset.y + y
        style, width = self._line_style, self._line_width
        index = bisect_right(self._offsets, line) - 1
        if 0 <= index < len(self.blocks):
            strips = self._line_cache.get(index)
            if strips is None:
                strips = self._line_cache[index] = self._strips(self.blocks[index])
            row = line - self._offsets[index]
            if row < len(strips):
                strip = strips[row].crop_extend(self.scroll_offset.x, self.scroll_offset.x + width, style)
                if self.highlight:
                    current = self.blocks[index].event is self.current
                    strip = _mark(strip, self.highlight, CURRENT_HIT if current else OTHER_HIT)
                return strip
        return Strip([Segment(" " * width, style)], width)

    # -- search -------------------------------------------------------------------------------------
    def set_highlight(self, words: str, current: Event | None = None) -> None:
        self.highlight, self.current = words.lower(), current
        self.refresh()

    def scroll_to_event(self, event: Event) -> bool:
        """Bring the event's block into view, at the first line that holds the highlighted words (a folded result
        that hides them is unfolded); False when the transcript does not show the event."""
        index = next((i for i, block in enumerate(self.blocks) if block.event is event), None)
        if index is None:
            return False
        block = self.blocks[index]
        strips = self._strips(block)
        row = _first_row(strips, self.highlight)
        if row is None and self.folded(event):
            self.unfolded.add(_key(event))
            block.rendered = False
            strips = self._strips(block)
            row = _first_row(strips, self.highlight)
        self._relayout(False)  # the block's measured height moves the offsets of those below
        top = self._offsets[index] + (row or 0)
        self.scroll_to(y=max(0, top - 2), animate=False, immediate=True)
        self._follow = False  # new events do not carry the view away from the hit
        return True

    def block_at(self, y: int) -> Block | None:
        index = bisect_right(self._offsets, self.scroll_offset.y + y) - 1
        return self.blocks[index] if 0 <= index < len(self.blocks) else None

    def on_click(self, event: events.Click) -> None:
        block = self.block_at(event.y)
        if block is not None and is_foldable(block.event):
            self.toggle(block.event)


def _key(event: Event) -> int:
    return event.seq if event.seq != UNLOGGED else id(event)


CURRENT_HIT = Style(color="#000000", bgcolor="#ffd75f", bold=True)  # truecolor: kept as it is by any theme
OTHER_HIT = Style(reverse=True)


def _first_row(strips: list[Strip], words: str) -> int | None:
    return next((i for i, strip in enumerate(strips) if words and words in strip.text.lower()), None)


def _mark(strip: Strip, words: str, style: Style) -> Strip:
    """The strip with every occurrence of `words` (lower case; any case in the strip) in `style`."""
    text = strip.text.lower()
    start = text.find(words)
    if start < 0:
        return strip
    cuts: list[int] = []
    while start >= 0:  # cells, not characters: a wide character takes two
        cuts += [cell_len(text[:start]), cell_len(text[: start + len(words)])]
        start = text.find(words, start + len(words))
    parts = strip.divide([*cuts, strip.cell_length])
    # the mark's style goes over the text's own (a highlighted code line has its own background)
    return Strip.join(Strip(Segment.apply_style(part, post_style=style)) if i % 2 else part
                      for i, part in enumerate(parts))  # fmt: skip
