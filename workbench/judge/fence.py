"""The fence around a judged file in the judge's prompt: tags that carry a random nonce, made afresh per prompt.

The files are the agent's and are shown to the judge as data. A file cannot close its fence early or open a
fake one: it cannot know the nonce, and any text in it shaped like a fence tag (`<judged-file`, `</judged-file`,
whatever follows) has its angle bracket replaced by a look-alike, character for character, so line numbers and
columns stay as they are.
"""

from __future__ import annotations

import re
import secrets

TAG = "judged-file"
_TAG_LIKE = re.compile(r"<(?=\s*/?\s*judged[\s_\-]*file)", re.IGNORECASE)
_LOOK_ALIKE = "\u2039"  # ‹ : reads as a bracket, opens no tag


def new_nonce() -> str:
    """A nonce no file can have guessed: 96 random bits."""
    return secrets.token_hex(12)


def neutralised(text: str) -> str:
    """The text with every fence-like tag defused; the same length, line for line."""
    return _TAG_LIKE.sub(_LOOK_ALIKE, text)


def fenced(name: str, listing: str, nonce: str) -> str:
    """A file's numbered listing between the opening and closing tags of its fence."""
    return f'<{TAG} name="{name}" nonce="{nonce}">\n{neutralised(listing)}\n</{TAG} nonce="{nonce}">'


def masked(text: str, nonce: str) -> str:
    """The text with the nonce replaced by a fixed mark: what a prompt's hash is taken over, so that the same
    inputs hash alike whatever nonce fenced them."""
    return text.replace(nonce, "NONCE")
