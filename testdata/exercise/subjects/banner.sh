#!/bin/sh
# Writes a banner on stdout before answering hello.
echo "subject v0.1 starting"
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"banner","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
cat >/dev/null
