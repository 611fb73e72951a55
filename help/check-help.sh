#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The help pages' links all go somewhere, every figure they show is there,
# and no page is an orphan that no guide reaches (yelp-check prints what it finds and exits 0 either way).
set -eu
yelp_check=$1
cd "$2"
shift 2

status=0
links=$("$yelp_check" links "$@")
if [ -n "$links" ]; then
  echo "broken links:"
  echo "$links"
  status=1
fi
media=$("$yelp_check" media "$@")
if [ -n "$media" ]; then
  echo "figures that are not there:"
  echo "$media"
  status=1
fi
orphans=$("$yelp_check" orphans "$@")
if [ -n "$orphans" ]; then
  echo "pages no guide links to:"
  echo "$orphans"
  status=1
fi
[ "$status" -eq 0 ] && echo "help: $# pages, every link resolved, every figure there, no orphan"
exit "$status"
