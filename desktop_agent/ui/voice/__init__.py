"""Voice in the window: the thin Qt adapter over the core voice session, the microphone and speaker (Qt
and PulseAudio devices, hot-plug, made when first used), the mic button, speech models and their
download."""
