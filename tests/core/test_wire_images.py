"""Images in a user message (an MCP resource or prompt's, contracts §2a and
§10): kept beside the text in the history, sent as the content's parts, and
the rest of the wire rules unchanged under both profiles."""

from __future__ import annotations

import base64

from desktop_agent.core.history import history_of, sent_user_message
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.json_types import JSONMapping, JSONObject
from desktop_agent.core.mentions import Attachment
from desktop_agent.core.messages import ImageContent
from desktop_agent.core.transcript import UserText
from desktop_agent.core.wire import (
    IMAGES_KEY,
    STRICT,
    TYPED_KEY,
    history_message,
    history_messages,
    normalize,
    text_message,
    user_message,
)
from desktop_agent.testing.wire_contract import wire_problems

PNG = b"\x89PNG fake"
URL = f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
PART = {"type": "image_url", "image_url": {"url": URL}}


def test_a_user_message_keeps_its_images_beside_its_text() -> None:
    assert user_message("look", [("image/png", PNG)]) == {"role": "user", "content": "look", IMAGES_KEY: [PART]}
    assert user_message("plain") == {"role": "user", "content": "plain"}


def test_images_become_the_contents_parts_after_its_text() -> None:
    messages: list[JSONMapping] = [
        text_message("system", "be brief"),
        user_message("what is this?", [("image/png", PNG)]),
    ]
    sent = normalize(messages)
    assert sent == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, PART]},
    ]
    assert wire_problems(sent) == []


def test_the_strict_profile_folds_the_system_text_and_merged_messages_keep_every_image() -> None:
    other: JSONObject = {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}}
    messages: list[JSONMapping] = [
        text_message("system", "be brief"),
        user_message("one", [("image/png", PNG)]),
        {"role": "user", "content": [{"type": "text", "text": "two"}, other]},
        text_message("system", "plan first"),
    ]
    sent = normalize(messages, STRICT)
    assert sent == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "be brief\n\none\n\ntwo\n\n[system instruction]\nplan first"}, PART, other],
        }
    ]
    assert wire_problems(sent, system_role=False) == []


def test_the_history_sends_what_the_model_read_not_what_was_typed() -> None:
    typed = "/mcp__ev__picture"
    item = UserText(typed, 300.0, (Attachment("prompt", "ev", "picture"),), "What is in this picture?",
                    (ImageContent("image/png", PNG),))
    assert sent_user_message(item) == UserMessage("What is in this picture?", typed, (ImageContent("image/png", PNG),))
    assert history_message(sent_user_message(item)) == {
        "role": "user", "content": "What is in this picture?", TYPED_KEY: typed, IMAGES_KEY: [PART]
    }
    assert normalize(history_messages([sent_user_message(item)])) == [
        {"role": "user", "content": [{"type": "text", "text": "What is in this picture?"}, PART]}
    ]
    assert history_of([item]).messages == [sent_user_message(item)]
    assert history_message(sent_user_message(UserText("hi"))) == {"role": "user", "content": "hi"}


def test_an_earlier_message_left_out_of_a_full_request_takes_its_images_with_it() -> None:
    from desktop_agent.core.budget import fit_request
    from desktop_agent.storage.history_json import history_items

    messages: list[JSONMapping] = [
        user_message("old " * 2000, [("image/png", PNG)]),
        text_message("assistant", "seen"),
        user_message("now", [("image/png", PNG)]),
    ]
    fitted = history_messages(fit_request(history_items(messages), 2000).items)
    assert IMAGES_KEY not in fitted[0] and str(fitted[0]["content"]).startswith("[")
    assert fitted[2] == messages[2]
