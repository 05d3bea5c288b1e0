#!/bin/sh
# Answers hello, then writes a log line on stdout where a response belongs.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"garbage","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
read -r request
echo "processing the request..."
cat >/dev/null
