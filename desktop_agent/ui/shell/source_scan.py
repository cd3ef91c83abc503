"""PySide6's import hook without its memory cost.

Once PySide6 is imported, every later import passes through its feature hook
(``from __feature__ import snake_case``), which reads the new module's whole
source with ``inspect.getsource`` to see whether it names PySide6. That read
goes through ``linecache``, which keeps the text of every module imported
after Qt for the life of the process: about 20 MiB in an idle window (the mcp
client alone brings hundreds of modules), more than the whole of the app's own
code. :func:`stop_source_cache` swaps the check for the same test made on the
loader's source, which is read and dropped, so nothing stays.

The check lives in PySide6's private support package (``shibokensupport``);
if a PySide6 release renames or drops it, this does nothing and the window
works as before, only heavier.
"""

from __future__ import annotations

import linecache
import sys
from types import ModuleType

_FEATURE_MODULE = "shibokensupport.feature"
_CHECK = "_mod_uses_pyside"


def uses_pyside(module: ModuleType) -> bool:
    """Whether ``module``'s source names PySide6: PySide6's own test, without
    ``linecache``. A module with no source to read (built in, an extension,
    compiled only) does not, as PySide6 decides too."""
    loader = getattr(module, "__loader__", None)
    get_source = getattr(loader, "get_source", None)
    if get_source is None:
        return False
    try:
        source = get_source(module.__name__)
    except (ImportError, OSError, SyntaxError, UnicodeDecodeError):
        return False
    return isinstance(source, str) and "PySide6" in source


def stop_source_cache() -> bool:
    """Make PySide6's import hook read sources without keeping them; whether
    it could (False: this PySide6 has no such hook)."""
    import PySide6  # noqa: F401  (loads the support package that holds the hook)

    feature = sys.modules.get(_FEATURE_MODULE)
    if feature is None or not callable(getattr(feature, _CHECK, None)):
        return False
    setattr(feature, _CHECK, uses_pyside)
    linecache.clearcache()  # what it kept before this
    return True


__all__ = ["stop_source_cache", "uses_pyside"]
