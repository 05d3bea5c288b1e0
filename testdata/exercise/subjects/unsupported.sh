#!/bin/sh
# Answers hello with no op at all, then every request with an error.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"unsupported","language":"sh","ops":[]}'
cat >/dev/null
