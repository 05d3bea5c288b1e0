#!/bin/sh
# Answers hello, then exits with status 1 after reading its first request.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"exits-early","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
read -r request
echo "Traceback (most recent call last):" >&2
echo "RuntimeError: the subject crashed on purpose" >&2
exit 1
