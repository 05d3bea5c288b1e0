#!/bin/sh
# Answers hello, then reads its requests and never answers: it blocks on
# stdin until tracecheck gives up on it (--timeout) and kills it.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"hangs","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
cat >/dev/null
