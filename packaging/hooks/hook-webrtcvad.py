# webrtcvad comes from the `webrtcvad-wheels` distribution; the contrib hook
# asks for `webrtcvad`'s metadata, which does not exist, and stops the build.
from PyInstaller.utils.hooks import copy_metadata

datas = copy_metadata("webrtcvad-wheels")
