#!/bin/sh
# Answers hello claiming protocol 2.
read -r hello
echo '{"id":1,"ok":true,"protocol":2,"name":"old-protocol","language":"sh","ops":["journal"]}'
cat >/dev/null
