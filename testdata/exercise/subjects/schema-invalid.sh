#!/bin/sh
# Answers hello, then answers every request with a response whose error
# lacks its message.
read -r hello
echo '{"id":1,"ok":true,"protocol":1,"name":"schema-invalid","language":"sh","ops":["journal","replay","branch","append","checkpoint","replay_from_checkpoint","resume"]}'
while read -r request; do
	id=$(printf '%s\n' "$request" | sed 's/^{"id":\([0-9]*\),.*/\1/')
	echo "{\"id\":$id,\"ok\":false,\"error\":{\"reason\":\"not implemented\"}}"
done
