#!/bin/sh
# Answers hello (with no op), then writes a goodbye on stdout when its stdin
# ends: a line after the last response.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"trailing-output","language":"sh","ops":[]}'
cat >/dev/null
echo "bye"
