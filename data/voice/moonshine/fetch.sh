#!/usr/bin/env bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The offline recogniser's Moonshine engine (issue 30), made at build time:
# Moonshine tiny, quantized (English, MIT; the ONNX graphs ship in the npm
# package @moonshine-ai/moonshine-js), onnxruntime's library (MIT; shipped in
# onnxruntime-node, x86_64 and arm64 Linux) and the LLaMA tokenizer's pieces
# (llama-tokenizer-js, MIT), each fetched once with `npm pack` at a pinned
# version and checked against its registry integrity (sha512) before use,
# as bench/voice/moonshine/run does. Then words.mjs writes the tokenizer's
# pieces and the jam domain model's words as tokens.
#
# Usage: fetch.sh SRCDIR WORKDIR JAM_LM OUTDIR [npm cache dir] [offline: true|false]
# Offline with a cache (the Flatpak build), the tarballs are taken from
# the folder tarballs/ beside the cache, where the manifest puts them.
# Writes to OUTDIR: encoder_model.onnx decoder_model_merged.onnx tokens.txt
# words.tsv libonnxruntime.so.1
set -euo pipefail

src=$1 work=$2 lm=$3 out=$4 cache=${5:-} offline=${6:-false}
mkdir -p "$work" "$out"

npm_pack () {
  set -- npm pack --silent --pack-destination "$work" "$@"
  if [ -n "$cache" ]; then
    set -- "$@" --cache "$cache"
  fi
  if [ "$offline" = true ]; then
    set -- "$@" --offline
  fi
  "$@"
}

fetch () {  # name version sha512-integrity
  local name=$1 version=$2 integrity=$3 dir=$work/node_modules/$1 tgz
  if [ -f "$dir/.checked" ] && [ "$(cat "$dir/.checked")" = "$integrity" ]; then
    return
  fi
  # Offline (Flatpak): the manifest has put the tarball beside the npm cache,
  # in flatpak-node/tarballs, checked by its sha512 already and again here.
  local offline_tgz
  offline_tgz=$(dirname "${cache:-.}")/tarballs/$(echo "${name#@}" | tr / +)-$version.tgz
  if [ "$offline" = true ] && [ -f "$offline_tgz" ]; then
    tgz=$(basename "$offline_tgz")
    cp "$offline_tgz" "$work/$tgz"
  else
    tgz=$(npm_pack "$name@$version" | tail -n 1)
  fi
  if [ "sha512-$(openssl dgst -sha512 -binary "$work/$tgz" | base64 -w0)" != "$integrity" ]; then
    echo "data/voice/moonshine: $name@$version does not match its integrity" >&2
    rm -f "$work/$tgz"
    exit 1
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  tar xzf "$work/$tgz" -C "$dir" --strip-components=1
  rm -f "$work/$tgz"
  echo "$integrity" > "$dir/.checked"
}

fetch @moonshine-ai/moonshine-js 0.1.29 \
  sha512-Gx1B3mJcbM68ihSy/LyJEuEkGq7sYMqTb04zNdcIeidU0URVlSmXP0GyiQOTTAqDZQXlIC7k+bky+FdXk0UPlg==
fetch onnxruntime-node 1.30.0 \
  sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw==
fetch llama-tokenizer-js 1.2.2 \
  sha512-Wmth393dc3odWU3IzARJ3r2oIfWgw9GdJ5Gm+hGhfECNO18UHLRqEFSf511jn4E9KcQGzuuKw4Wl08pHAemLAw==

case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "data/voice/moonshine: onnxruntime-node has no library for $(uname -m)" >&2; exit 1 ;;
esac

# Each output replaced whole (a running bench or test may have the old one
# mapped: overwritten in place, it would crash).
put () {  # from to
  cp "$1" "$2.tmp" && mv -f "$2.tmp" "$2"
}
model=$work/node_modules/@moonshine-ai/moonshine-js/dist/model/tiny/quantized
put "$model/encoder_model.onnx" "$out/encoder_model.onnx"
put "$model/decoder_model_merged.onnx" "$out/decoder_model_merged.onnx"
put "$work/node_modules/onnxruntime-node/bin/napi-v6/linux/$arch/libonnxruntime.so.1" "$out/libonnxruntime.so.1"
cp "$src/words.mjs" "$work/words.mjs"
node "$work/words.mjs" "$lm" "$work/tokens.txt" "$work/words.tsv"
put "$work/tokens.txt" "$out/tokens.txt"
put "$work/words.tsv" "$out/words.tsv"
