"""The conversation as the user sees it: bubbles, Markdown and code blocks, message actions, the input box
with Send/Interrupt and the preview countdown, and the turn: ``TurnLogic`` (what the window does, without Qt:
turns, answers, settings, switching; its events and enums in ``turn_events``) beside ``TurnController`` (its thin Qt
adapter: the reports as Signals) and ``TurnView`` (the Qt side of one turn)."""
