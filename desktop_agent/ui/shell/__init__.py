"""The window shell: the main window and its keys, what it needs from the composition root (``WindowDeps``),
its life on the qasync loop, one window per data folder, the tray, the status bar, the welcome and the
fonts. The theme, the appearance and the other parts every feature shares are in ``ui/common``."""
