#!/usr/bin/env bash
# Installs motion-host and the sample plugins (manifests/*.json and the libraries they name) into a prefix,
# where motion-host's own search path finds them, so that `motion-host run SCENE` needs no --plugin-path;
# or, with --uninstall, removes exactly what it installed.
#
#   Scripts/install.sh [--prefix DIR] [--configuration release|debug] [--uninstall]
#
# --prefix DIR         Default ~/.local. The binary goes to DIR/bin. The plugins go where the search path looks:
#                      for ~/.local, $XDG_DATA_HOME/motion/plugins (~/.local/share/motion/plugins); for
#                      /usr/local or /usr, DIR/lib/motion/plugins; for any other prefix, DIR/lib/motion/plugins
#                      too, which you then add to MOTION_PLUGIN_PATH (the script says so).
# --configuration C    Build and install the release (default) or debug products.
# --uninstall          Remove the files a previous install into the same prefix wrote (it keeps a list).
#
# Files are installed with mode 0755 (binary, libraries, folders) or 0644 (manifests), as the host's trust
# checks require (not writable by group or others).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="$HOME/.local"
configuration=release
uninstall=false
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --configuration) configuration="${2:?--configuration needs release or debug}"; shift 2 ;;
        --uninstall) uninstall=true; shift ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1'; see Scripts/install.sh --help" >&2; exit 64 ;;
    esac
done
case "$configuration" in release|debug) ;; *) echo "error: --configuration takes release or debug, not '$configuration'" >&2; exit 64 ;; esac
prefix="${prefix%/}"
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac

if [ "$prefix" = "$HOME/.local" ]; then
    data="${XDG_DATA_HOME:-}"
    case "$data" in /*) ;; *) data="$HOME/.local/share" ;; esac
    plugins="$data/motion/plugins"
else
    plugins="$prefix/lib/motion/plugins"
fi
bin="$prefix/bin"
list="$plugins/.motion-runtime-installed"

if $uninstall; then
    if [ ! -f "$list" ]; then
        echo "error: $list not found: nothing was installed into $prefix by this script" >&2
        exit 1
    fi
    while IFS= read -r file; do
        [ -n "$file" ] && rm -f -- "$file"
    done < "$list"
    rm -f -- "$list"
    rmdir -- "$plugins" 2>/dev/null || true
    echo "removed motion-host and the sample plugins from $prefix"
    exit 0
fi

swift build -c "$configuration"
products="$(swift build -c "$configuration" --show-bin-path)"

umask 022
install -d -m 0755 "$bin" "$plugins"
installed=()
install -m 0755 "$products/motion-host" "$bin/motion-host"
# The sandbox an isolated plugin runs in (--isolate, "isolation": "process"): motion-host starts it from its own folder.
install -m 0755 "$products/motion-sandbox" "$bin/motion-sandbox"
installed+=("$bin/motion-host" "$bin/motion-sandbox")
for manifest in manifests/*.json; do
    library="$(sed -n 's/^ *"library": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1)"
    if [ -z "$library" ] || [ ! -f "$products/$library" ]; then
        echo "error: $manifest: library '$library' was not built in $products" >&2
        exit 1
    fi
    install -m 0644 "$manifest" "$plugins/$(basename "$manifest")"
    install -m 0755 "$products/$library" "$plugins/$library"
    installed+=("$plugins/$(basename "$manifest")" "$plugins/$library")
done
printf '%s\n' "${installed[@]}" > "$list"
chmod 0644 "$list"

echo "installed $bin/motion-host, $bin/motion-sandbox and ${#installed[@]} files; plugins in $plugins"
case "$plugins" in
    "${XDG_DATA_HOME:-$HOME/.local/share}/motion/plugins"|/usr/local/lib/motion/plugins|/usr/lib/motion/plugins) ;;
    *) echo "note: $plugins is not on the default search path: export MOTION_PLUGIN_PATH=$plugins" ;;
esac
case ":$PATH:" in *":$bin:"*) ;; *) echo "note: $bin is not on PATH: export PATH=\"$bin:\$PATH\"" ;; esac
