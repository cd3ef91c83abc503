"""One window per data folder: the claim, the socket, and what the first
window does with a later launch's command line."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop_agent.ui.shell.single_instance import InstanceServer, claim, forward, socket_path


def test_a_folder_is_claimed_once_until_released(tmp_path: Path) -> None:
    first = claim(tmp_path)
    assert first is not None
    assert claim(tmp_path) is None  # a second window of the same folder
    first.release()
    again = claim(tmp_path)
    assert again is not None
    again.release()


def test_the_socket_is_named_after_the_folder_and_the_user(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert socket_path(tmp_path / "a") == socket_path(tmp_path / "link")
    assert socket_path(tmp_path / "a") != socket_path(tmp_path / "b")
    assert len(str(socket_path(tmp_path / "a"))) < 100  # a Unix socket path's limit is 108


def test_a_later_launch_hands_its_arguments_over(qtbot: QtBot, tmp_path: Path) -> None:
    server = InstanceServer(tmp_path / "s.sock")
    assert server.listening
    answered: list[bool] = []
    with qtbot.waitSignal(server.arguments, timeout=10_000) as got:
        sender = threading.Thread(target=lambda: answered.append(forward(tmp_path / "s.sock", ["--prompt", "你好"])))
        sender.start()
    sender.join(10)
    assert got.args == [["--prompt", "你好"]] and answered == [True]
    server.close()
    assert not (tmp_path / "s.sock").exists()


def test_garbage_on_the_socket_is_refused_and_the_server_goes_on(qtbot: QtBot, tmp_path: Path) -> None:
    server = InstanceServer(tmp_path / "s.sock")
    replies: list[bytes] = []

    def garbage() -> None:
        with socket.socket(socket.AF_UNIX) as client:
            client.settimeout(5)
            client.connect(str(tmp_path / "s.sock"))
            client.sendall(b'{"not": "a list"}\n')
            replies.append(client.recv(16))

    with qtbot.assertNotEmitted(server.arguments, wait=300):
        thread = threading.Thread(target=garbage)
        thread.start()
        qtbot.waitUntil(lambda: bool(replies), timeout=5000)
    thread.join(5)
    assert replies == [b"bad\n"]
    with qtbot.waitSignal(server.arguments, timeout=10_000):
        threading.Thread(target=lambda: forward(tmp_path / "s.sock", [])).start()
    server.close()


def test_a_stale_socket_of_a_crashed_window_is_replaced(qtbot: QtBot, tmp_path: Path) -> None:
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(tmp_path / "s.sock"))
    stale.close()  # the file stays, nobody listens: what a crash leaves
    server = InstanceServer(tmp_path / "s.sock")
    assert server.listening
    with qtbot.waitSignal(server.arguments, timeout=10_000):
        threading.Thread(target=lambda: forward(tmp_path / "s.sock", ["x"])).start()
    server.close()


def test_nobody_listening_is_said_after_the_timeout(tmp_path: Path) -> None:
    assert forward(tmp_path / "nobody.sock", ["x"], timeout_s=0.3) is False


def test_the_first_window_comes_forward_sends_the_prompt_and_says_what_it_could_not_take(
    qtbot: QtBot,
) -> None:
    from desktop_agent.app import take_arguments
    from desktop_agent.testing.window_rig import offline_deps
    from desktop_agent.ui.chat.bubble import MessageBubble
    from desktop_agent.ui.shell.main_window import MainWindow

    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.show()
    window.showMinimized()
    sent: list[str] = []
    window.controller.start_turn = lambda text, _open: sent.append(text) or True  # type: ignore[method-assign, union-attr, func-returns-value]
    take_arguments(window, ["--prompt", "hello from the second launch", "--model", "gpt-x", "--tts", "edge"])
    assert not window.isMinimized() and window.isVisible()
    assert sent == ["hello from the second launch"]
    notices = [b.text() for b in window.chat.findChildren(MessageBubble) if "did not apply" in b.text()]
    assert notices == ["This window was already open, so --model, --tts did not apply; close it and start again "
                       "to use them."]
