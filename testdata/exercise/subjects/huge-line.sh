#!/bin/sh
# Answers hello, then writes one endless line (no newline) on stdout.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"huge-line","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
read -r request
yes x | tr -d '\n'
