"""Cards in the conversation: the tool card (its state reducer, wording and answer row), the
``ask_user_question`` form and the ``show_card`` visual card."""
