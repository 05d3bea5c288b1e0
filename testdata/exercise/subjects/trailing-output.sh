#!/bin/sh
# Answers hello, then writes a goodbye on stdout when its stdin ends.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"trailing-output","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
cat >/dev/null
echo "bye"
