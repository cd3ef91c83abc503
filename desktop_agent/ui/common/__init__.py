"""What every part of the window shares, below all of ui/'s features: the theme and its colours,
the language and theme applied together (appearance) with Qt's own words in that language, widgets that
re-set their text on a language switch (retranslate), the dialogs' common parts, the spinner, the keys'
names and the operating system's errors in words. Nothing here imports a feature or the shell."""
