#!/bin/sh
# The sequence chart (--trace-svg) of two bundled violations: druba writes it, it is byte for byte
# the copy in docs/ that docs/manual.md shows, and headless Chromium renders it to a PNG of the size
# the SVG states (a picture, not an empty page). Writes only inside a directory it makes.
#   check_trace_svg.sh DRUBA SOURCE_DIR
set -eu
druba=$1
root=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$root"
for model in peterson-broken ticket-lock-broken; do
  code=0
  "$druba" verify "models/$model.drb" --trace-svg "$dir/$model.svg" > "$dir/$model.txt" || code=$?
  if [ "$code" -ne 10 ]; then
    echo "verify models/$model.drb: exit $code, expected 10"; cat "$dir/$model.txt"; exit 1
  fi
  if ! cmp -s "$dir/$model.svg" "docs/trace-$model.svg"; then
    echo "docs/trace-$model.svg is not what druba draws now (copy $dir/$model.svg over it)"
    diff "$dir/$model.svg" "docs/trace-$model.svg" | head -20
    exit 1
  fi
  grep -q 'stroke="#d62728"' "$dir/$model.svg" || { echo "$model: no failing statement marked"; exit 1; }
  width=$(sed -n 's/^<svg [^>]*width="\([0-9]*\)[."].*/\1/p' "$dir/$model.svg")
  height=$(sed -n 's/^<svg [^>]*height="\([0-9]*\)[."].*/\1/p' "$dir/$model.svg")
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$dir/profile" --hide-scrollbars --window-size="$width,$height" \
    --screenshot="$dir/$model.png" "file://$dir/$model.svg" > "$dir/chromium.log" 2>&1 || true
  if [ ! -s "$dir/$model.png" ]; then
    echo "$model: Chromium wrote no PNG"; cat "$dir/chromium.log"; exit 1
  fi
  # The PNG's size (bytes 16-23, big-endian) is the window's: the SVG was laid out.
  png=$(od -An -tu1 -j16 -N8 "$dir/$model.png" | tr -s ' ' | sed 's/^ //')
  set -- $png
  png_width=$(( ($1 << 24) + ($2 << 16) + ($3 << 8) + $4 ))
  png_height=$(( ($5 << 24) + ($6 << 16) + ($7 << 8) + $8 ))
  bytes=$(wc -c < "$dir/$model.png")
  echo "$model: $width x $height SVG rendered to a $png_width x $png_height PNG of $bytes bytes"
  if [ "$png_width" -ne "$width" ] || [ "$bytes" -lt 20000 ]; then
    echo "$model: the rendering looks empty"; exit 1
  fi
  if [ -n "${DRUBA_KEEP_PNG:-}" ]; then cp "$dir/$model.png" "$DRUBA_KEEP_PNG/$model.png"; fi
done
