"""The conversation as the user sees it: bubbles, Markdown and code blocks, message actions, the input box
with Send/Interrupt and the preview countdown, and the turn: ``TurnController`` (what the window does,
without a widget) beside ``TurnView`` (the Qt side of one turn)."""
