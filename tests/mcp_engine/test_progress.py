"""MCP progress as the bus shows it: BusToolContext.progress (core/tool_router.py)
turns each report into ``tool_progress`` with an ETA and keeps the lines as
partial output. The engine feeds it; these pin the ETA rule."""

from __future__ import annotations

from collections.abc import Callable

from .conftest import CallContext


def _etas(call: CallContext) -> list[object]:
    return [m["eta_s"] for m in call.messages("tool_progress")]


def test_eta_comes_from_the_rate_since_the_first_report(make_ctx: Callable[..., CallContext]) -> None:
    call = make_ctx()  # the fake clock ticks 1 s per report

    for step in (10, 20, 30, 40):
        call.ctx.progress(step, 100, None)

    # 10 units per second; 80, 70, 60 units left.
    assert _etas(call) == [None, 8.0, 7.0, 6.0]
    assert call.ctx.partial.snapshot() == {"progress": ["10/100", "20/100", "30/100", "40/100"]}


def test_without_a_total_there_is_no_eta_and_the_lines_keep_messages(
    make_ctx: Callable[..., CallContext],
) -> None:
    call = make_ctx()

    call.ctx.progress(1, None, "fetched page 1")
    call.ctx.progress(2, None, "fetched page 2")

    assert call.messages() == [
        {
            "type": "tool_progress",
            "session_id": call.bus.session_id,
            "seq": 1,
            "tool_call_id": call.ctx.tool_call_id,
            "progress": 1,
            "total": None,
            "message": "fetched page 1",
            "eta_s": None,
        },
        {
            "type": "tool_progress",
            "session_id": call.bus.session_id,
            "seq": 2,
            "tool_call_id": call.ctx.tool_call_id,
            "progress": 2,
            "total": None,
            "message": "fetched page 2",
            "eta_s": None,
        },
    ]
    assert call.ctx.partial.snapshot() == {"progress": ["1 fetched page 1", "2 fetched page 2"]}


def test_a_new_total_or_progress_going_back_starts_a_new_estimate(
    make_ctx: Callable[..., CallContext],
) -> None:
    call = make_ctx()

    call.ctx.progress(1, 2, "download")
    call.ctx.progress(2, 2, "download")
    call.ctx.progress(1, 10, "unpack")  # second phase: the download rate says nothing about it
    call.ctx.progress(3, 10, "unpack")
    call.ctx.progress(0, 10, "retry")  # went backwards
    call.ctx.progress(5, 10, "retry")

    assert _etas(call) == [None, 0.0, None, 3.5, None, 1.0]
